-- Every store x every weekday, with the opening hours if any.
SELECT s.id AS store_id,
       s.name,
       d.weekday,
       h.opens_at,
       h.closes_at
FROM stores s
CROSS JOIN (SELECT DISTINCT weekday FROM calendar) d
LEFT JOIN opening_hours h ON h.store_id = s.id AND h.weekday = d.weekday
ORDER BY s.id, d.weekday
