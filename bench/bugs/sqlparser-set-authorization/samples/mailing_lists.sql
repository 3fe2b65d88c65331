-- Everyone who should get the spring newsletter.
SELECT email FROM users WHERE marketing_opt_in = TRUE
UNION
SELECT email FROM contacts WHERE source = 'trade fair'
EXCEPT
SELECT email FROM unsubscribes;

-- Customers who are also on the beta list.
SELECT u.email FROM users u
INTERSECT
SELECT b.email FROM beta_signups b;

-- Activity feed for the admin dashboard, newest first.
SELECT 'order' AS kind, CAST(o.id AS VARCHAR(20)) AS ref, o.placed_at AS at_time FROM orders o
UNION ALL
SELECT 'signup', CAST(u.id AS VARCHAR(20)), u.created_at FROM users u
UNION ALL
SELECT 'review', CAST(r.id AS VARCHAR(20)), r.created_at FROM reviews r
ORDER BY at_time DESC
LIMIT 100;
