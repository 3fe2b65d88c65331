WITH RECURSIVE reports_to AS (
    SELECT e.id, e.full_name, e.manager_id, 1 AS lvl
    FROM employees e
    WHERE e.manager_id = 17
    UNION ALL
    SELECT e.id, e.full_name, e.manager_id, r.lvl + 1
    FROM employees e
    JOIN reports_to r ON e.manager_id = r.id
)
SELECT r.lvl,
       r.full_name,
       m.full_name AS manager,
       d.name AS department
FROM reports_to r
LEFT JOIN employees m ON m.id = r.manager_id
LEFT OUTER JOIN departments d ON d.id = (SELECT e2.department_id FROM employees e2 WHERE e2.id = r.id)
ORDER BY r.lvl ASC, r.full_name ASC;

-- managers without any direct report
SELECT m.id, m.full_name FROM employees m
WHERE NOT EXISTS (SELECT 1 FROM employees e WHERE e.manager_id = m.id) AND m.is_manager = TRUE;
