-- Migration 006: loyalty programme
ALTER TABLE users ADD COLUMN loyalty_points INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN loyalty_tier VARCHAR(10) DEFAULT 'bronze';

-- Backfill: one point per full euro spent on completed orders.
UPDATE users
SET loyalty_points = (
    SELECT CAST(COALESCE(SUM(o.subtotal), 0) AS INTEGER)
    FROM orders o
    WHERE o.user_id = users.id AND o.status = 'shipped'
);

UPDATE users SET loyalty_tier = 'silver' WHERE loyalty_points >= 500 AND loyalty_points < 2000;
UPDATE users SET loyalty_tier = 'gold' WHERE loyalty_points >= 2000;

CREATE INDEX idx_users_loyalty ON users (loyalty_tier, loyalty_points);
