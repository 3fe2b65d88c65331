-- Keep the most recently updated row per e-mail address, delete the rest.
DELETE FROM contacts
WHERE id IN (
    SELECT id
    FROM (
        SELECT id,
               ROW_NUMBER() OVER (PARTITION BY LOWER(email) ORDER BY updated_at DESC, id DESC) AS rn
        FROM contacts
        WHERE email IS NOT NULL
    ) ranked
    WHERE ranked.rn > 1
);

-- Sanity check: must return no rows.
SELECT LOWER(email) AS email, COUNT(*) AS copies
FROM contacts
GROUP BY LOWER(email)
HAVING COUNT(*) > 1;
