BEGIN;

INSERT INTO orders_archive (id, user_id, status, subtotal, shipping, placed_at, archived_at)
SELECT id, user_id, status, subtotal, shipping, placed_at, CURRENT_TIMESTAMP
FROM orders
WHERE placed_at < DATE '2021-01-01'
  AND status IN ('shipped', 'cancelled', 'refunded');

DELETE FROM orders
WHERE placed_at < DATE '2021-01-01'
  AND status IN ('shipped', 'cancelled', 'refunded');

COMMIT;
