-- Migration 002: orders and order lines
CREATE TABLE orders (
    id BIGINT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id),
    status VARCHAR(20) NOT NULL DEFAULT 'pending',
    currency CHAR(3) NOT NULL DEFAULT 'EUR',
    subtotal NUMERIC(12, 2) NOT NULL DEFAULT 0,
    shipping NUMERIC(12, 2) NOT NULL DEFAULT 0,
    placed_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    shipped_at TIMESTAMP,
    CHECK (subtotal >= 0 AND shipping >= 0),
    CHECK (status IN ('pending', 'paid', 'shipped', 'cancelled', 'refunded'))
);

CREATE TABLE order_items (
    order_id BIGINT NOT NULL,
    line_no INTEGER NOT NULL,
    product_id INTEGER NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price NUMERIC(12, 2) NOT NULL,
    discount NUMERIC(5, 2) DEFAULT 0.00,
    PRIMARY KEY (order_id, line_no),
    FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE,
    FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE RESTRICT
);

CREATE INDEX idx_orders_user ON orders (user_id, placed_at);
CREATE INDEX idx_orders_status ON orders (status);
CREATE INDEX idx_order_items_product ON order_items (product_id);
