-- Admin panel: search users by name or e-mail, page 3 (50 per page).
SELECT id, display_name, email, locale, created_at
FROM users
WHERE (display_name LIKE '%smith%' OR email LIKE '%smith%')
  AND locale IN ('en-US', 'en-GB', 'de-DE')
  AND NOT is_admin
  AND phone IS NULL
ORDER BY created_at DESC
LIMIT 50 OFFSET 100;
