/*
 * Monthly signup cohorts and how many of each cohort ordered again
 * in the following months. Months are numbered from the first order
 * (0 = the month of the first order).
 */
WITH first_orders AS (
    SELECT user_id,
           MIN(placed_at) AS first_placed_at
    FROM orders
    WHERE status <> 'cancelled'
    GROUP BY user_id
),
cohorts AS (
    SELECT f.user_id,
           EXTRACT(YEAR FROM f.first_placed_at) * 12 + EXTRACT(MONTH FROM f.first_placed_at) AS cohort_month
    FROM first_orders f
),
activity AS (
    SELECT DISTINCT o.user_id,
           EXTRACT(YEAR FROM o.placed_at) * 12 + EXTRACT(MONTH FROM o.placed_at) AS active_month
    FROM orders o
    WHERE o.status <> 'cancelled'
),
cohort_activity AS (
    SELECT c.cohort_month,
           a.active_month - c.cohort_month AS month_number,
           COUNT(DISTINCT a.user_id) AS active_users
    FROM cohorts c
    INNER JOIN activity a ON a.user_id = c.user_id
    GROUP BY c.cohort_month, a.active_month - c.cohort_month
),
cohort_sizes AS (
    SELECT cohort_month, COUNT(*) AS cohort_size
    FROM cohorts
    GROUP BY cohort_month
)
SELECT ca.cohort_month / 12 AS cohort_year,
       ca.cohort_month % 12 AS cohort_month_of_year,
       s.cohort_size,
       ca.month_number,
       ca.active_users,
       ROUND(CAST(ca.active_users AS DECIMAL(10, 4)) / s.cohort_size * 100, 1) AS retention_pct,
       CASE
           WHEN ca.month_number = 0 THEN 'acquisition'
           WHEN ca.month_number BETWEEN 1 AND 3 THEN 'early'
           WHEN ca.month_number BETWEEN 4 AND 12 THEN 'mid'
           ELSE 'late'
       END AS phase
FROM cohort_activity ca
JOIN cohort_sizes s ON s.cohort_month = ca.cohort_month
WHERE ca.month_number <= 24
ORDER BY ca.cohort_month, ca.month_number;
