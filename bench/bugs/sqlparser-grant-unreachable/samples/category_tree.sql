-- Full category paths for the navigation menu.
WITH RECURSIVE category_path (id, name, path, depth) AS (
    SELECT id, name, CAST(name AS VARCHAR(500)), 0
    FROM categories
    WHERE parent_id IS NULL
    UNION ALL
    SELECT c.id, c.name, cp.path || ' > ' || c.name, cp.depth + 1
    FROM categories c
    INNER JOIN category_path cp ON c.parent_id = cp.id
    WHERE cp.depth < 10
)
SELECT id, path, depth
FROM category_path
ORDER BY path;
