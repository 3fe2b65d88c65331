-- experiment 42: new checkout button
with exposures as (
    select e.user_id, e.variant
    from experiment_exposures e
    where e.experiment_id = 42
),
conversions as (
    select distinct o.user_id
    from orders o
    where o.placed_at >= timestamp '2024-05-06 00:00:00'
      and o.status not in ('cancelled')
)
select x.variant,
       count(*) as users,
       count(c.user_id) as converted,
       cast(count(c.user_id) as decimal(10, 4)) / count(*) as conversion_rate
from exposures x
left join conversions c on c.user_id = x.user_id
group by x.variant
order by x.variant;
