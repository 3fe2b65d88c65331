-- Carrier SLA: share of shipments delivered within the promised days,
-- including carriers that had no shipments this quarter.
SELECT c.name AS carrier,
       COUNT(s.id) AS shipments,
       SUM(CASE WHEN s.delivered_days <= c.promised_days THEN 1 ELSE 0 END) AS on_time,
       CAST(AVG(s.delivered_days) AS DECIMAL(6, 2)) AS avg_days,
       MAX(s.delivered_days) AS worst_days
FROM shipments s
RIGHT JOIN carriers c ON c.id = s.carrier_id
LEFT JOIN regions USING (region_code)
WHERE c.active = TRUE
GROUP BY c.name
ORDER BY on_time DESC, c.name;
