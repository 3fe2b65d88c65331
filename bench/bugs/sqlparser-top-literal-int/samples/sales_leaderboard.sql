-- sales leaderboard per region, written by the ops team
with rep_sales as (
    select s.rep_id, r.region, sum(s.amount) as total, count(*) as deals
    from sales s
    join reps r on r.id = s.rep_id
    where s.closed_on between date '2024-04-01' and date '2024-06-30'
    group by s.rep_id, r.region
)
select region,
       rep_id,
       total,
       deals,
       rank() over (partition by region order by total desc) as region_rank,
       dense_rank() over (order by total desc) as overall_rank,
       total - avg(total) over (partition by region) as vs_region_avg
from rep_sales
order by region, region_rank;
