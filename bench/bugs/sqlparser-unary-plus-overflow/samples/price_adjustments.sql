/* Q3 price review: +5% on cookware, clearance on slow movers */
UPDATE products
SET price = CASE
        WHEN category_id = 6 THEN ROUND(price * 1.05, 2)
        WHEN stock > 100 THEN ROUND(price * 0.80, 2)
        ELSE price
    END,
    updated_at = CURRENT_TIMESTAMP
WHERE active = TRUE
  AND price BETWEEN 5 AND 500;
