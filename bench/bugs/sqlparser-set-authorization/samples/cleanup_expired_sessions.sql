-- Nightly job: purge expired sessions and orphaned password reset tokens.
DELETE FROM sessions
WHERE expires_at < CURRENT_TIMESTAMP
   OR revoked = TRUE;

DELETE FROM password_resets
WHERE used_at IS NOT NULL
   OR NOT EXISTS (SELECT 1 FROM users u WHERE u.id = password_resets.user_id);
