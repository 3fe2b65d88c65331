-- Running totals and order sequence per customer.
SELECT o.user_id,
       o.id AS order_id,
       o.placed_at,
       o.subtotal,
       ROW_NUMBER() OVER (PARTITION BY o.user_id ORDER BY o.placed_at) AS order_seq,
       SUM(o.subtotal) OVER (
           PARTITION BY o.user_id
           ORDER BY o.placed_at
           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
       ) AS running_total,
       SUM(o.subtotal) OVER (PARTITION BY o.user_id) AS customer_total,
       CAST(o.subtotal AS DECIMAL(12, 4)) / SUM(o.subtotal) OVER (PARTITION BY o.user_id) AS share_of_total
FROM orders o
WHERE o.status IN ('paid', 'shipped')
ORDER BY o.user_id, o.placed_at;
