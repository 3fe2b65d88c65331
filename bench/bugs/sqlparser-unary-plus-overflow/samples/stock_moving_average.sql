SELECT product_id,
       sold_on,
       units,
       AVG(units) OVER (PARTITION BY product_id ORDER BY sold_on ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS avg_7d,
       SUM(units) OVER (PARTITION BY product_id ORDER BY sold_on ROWS BETWEEN 29 PRECEDING AND CURRENT ROW) AS units_30d,
       LAG(units, 7) OVER (PARTITION BY product_id ORDER BY sold_on) AS units_week_ago
FROM daily_sales
WHERE sold_on >= DATE '2024-01-01'
ORDER BY product_id, sold_on;
