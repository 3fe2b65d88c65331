-- Monthly revenue report, net of refunds, for the finance dashboard.
WITH paid AS (
    SELECT o.id,
           EXTRACT(YEAR FROM o.placed_at) AS yr,
           EXTRACT(MONTH FROM o.placed_at) AS mon,
           o.subtotal + o.shipping AS gross
    FROM orders o
    WHERE o.status IN ('paid', 'shipped', 'refunded')
      AND o.placed_at >= DATE '2024-01-01'
),
refunds AS (
    SELECT r.order_id, SUM(r.amount) AS refunded
    FROM refunds r
    GROUP BY r.order_id
)
SELECT p.yr,
       p.mon,
       COUNT(*) AS orders,
       SUM(p.gross) AS gross_revenue,
       SUM(COALESCE(f.refunded, 0)) AS refunded,
       SUM(p.gross) - SUM(COALESCE(f.refunded, 0)) AS net_revenue
FROM paid p
LEFT JOIN refunds f ON f.order_id = p.id
GROUP BY p.yr, p.mon
ORDER BY p.yr, p.mon;
