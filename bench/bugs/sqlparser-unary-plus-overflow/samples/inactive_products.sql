/* Products that never sold, or not in the last 180 days of data */
SELECT p.id,
       p.sku,
       p.name,
       p.stock,
       (SELECT MAX(o.placed_at)
          FROM order_items i
          JOIN orders o ON o.id = i.order_id
         WHERE i.product_id = p.id) AS last_sold_at
FROM products p
WHERE p.active = TRUE
  AND p.id NOT IN (
      SELECT i.product_id
      FROM order_items i
      INNER JOIN orders o ON o.id = i.order_id
      WHERE o.placed_at >= DATE '2024-01-01'
  )
ORDER BY p.stock DESC;
