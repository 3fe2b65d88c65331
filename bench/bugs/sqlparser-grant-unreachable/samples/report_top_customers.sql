SELECT u.id,
       u.display_name,
       u.email,
       COUNT(o.id) AS order_count,
       SUM(o.subtotal) AS lifetime_value,
       MAX(o.placed_at) AS last_order
FROM users u
INNER JOIN orders o ON o.user_id = u.id
WHERE o.status <> 'cancelled'
GROUP BY u.id, u.display_name, u.email
HAVING COUNT(o.id) >= 3 AND SUM(o.subtotal) > 250
ORDER BY lifetime_value DESC
LIMIT 25;
