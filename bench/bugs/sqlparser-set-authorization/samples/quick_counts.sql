select count(*) from users;
select count(*) from orders where status = 'pending';
select count(*) from order_items;
