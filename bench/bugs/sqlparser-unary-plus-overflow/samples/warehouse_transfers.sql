-- Stock to move between warehouses before the holiday peak.
SELECT sku,
       src.warehouse_code AS from_wh,
       dst.warehouse_code AS to_wh,
       src.on_hand - src.reserved AS movable,
       dst.forecast - dst.on_hand AS needed
FROM warehouse_stock src
JOIN warehouse_stock dst USING (sku)
WHERE src.warehouse_code <> dst.warehouse_code
  AND src.on_hand - src.reserved > 0
  AND dst.forecast > dst.on_hand
  AND sku NOT LIKE 'TEST-%'
  AND src.updated_at NOT BETWEEN TIMESTAMP '2024-11-01 00:00:00' AND TIMESTAMP '2024-11-02 00:00:00'
ORDER BY needed DESC;

/* Warehouses without any stock rows yet (new sites). */
SELECT w.code, w.city
FROM warehouse_stock s
RIGHT OUTER JOIN warehouses w ON w.code = s.warehouse_code
WHERE s.sku IS NULL;
