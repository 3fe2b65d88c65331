-- Compare the warehouse export with what the shop thinks is in stock.
SELECT COALESCE(p.sku, w.sku) AS sku,
       p.name,
       p.stock AS shop_stock,
       w.on_hand AS warehouse_stock,
       CASE
           WHEN p.sku IS NULL THEN 'missing in shop'
           WHEN w.sku IS NULL THEN 'missing in warehouse'
           WHEN p.stock <> w.on_hand THEN 'mismatch'
           ELSE 'ok'
       END AS verdict,
       COALESCE(w.on_hand, 0) - COALESCE(p.stock, 0) AS delta
FROM products p
FULL OUTER JOIN warehouse_snapshot w ON w.sku = p.sku
WHERE p.sku IS NULL
   OR w.sku IS NULL
   OR p.stock <> w.on_hand
ORDER BY verdict, sku;
