SELECT o.id, o.customer_id, o.total
FROM orders AS o
WHERE o.status = 'shipped'
ORDER BY o.created_at DESC
LIMIT 25;
