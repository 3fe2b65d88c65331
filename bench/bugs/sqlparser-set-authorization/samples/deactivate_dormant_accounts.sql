UPDATE users
SET is_active = FALSE,
    deactivated_at = CURRENT_TIMESTAMP
WHERE is_admin = FALSE
  AND last_login_at < TIMESTAMP '2023-01-01 00:00:00'
  AND NOT EXISTS (
      SELECT 1
      FROM orders o
      WHERE o.user_id = users.id
        AND o.placed_at >= TIMESTAMP '2023-01-01 00:00:00'
  );

SELECT COUNT(*) AS deactivated FROM users WHERE is_active = FALSE AND deactivated_at IS NOT NULL;
