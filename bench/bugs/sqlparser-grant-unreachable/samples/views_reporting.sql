DROP VIEW IF EXISTS v_order_totals;
DROP VIEW IF EXISTS v_product_sales;

CREATE VIEW v_order_totals AS
SELECT o.id AS order_id,
       o.user_id,
       o.status,
       SUM(i.quantity * i.unit_price * (1 - i.discount / 100)) AS items_total,
       o.shipping,
       o.placed_at
FROM orders o
JOIN order_items i ON i.order_id = o.id
GROUP BY o.id, o.user_id, o.status, o.shipping, o.placed_at;

CREATE VIEW v_product_sales AS
SELECT p.id AS product_id,
       p.sku,
       p.name,
       c.name AS category,
       COALESCE(SUM(i.quantity), 0) AS units_sold,
       COUNT(DISTINCT i.order_id) AS orders
FROM products p
LEFT JOIN categories c ON c.id = p.category_id
LEFT JOIN order_items i ON i.product_id = p.id
GROUP BY p.id, p.sku, p.name, c.name;

-- Grant nothing here; permissions are managed in 010_roles.sql.
