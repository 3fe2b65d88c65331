BEGIN;

CREATE TABLE audit_log (
    id BIGINT PRIMARY KEY,
    actor_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
    action VARCHAR(40) NOT NULL,
    entity VARCHAR(40) NOT NULL,
    entity_id BIGINT,
    details TEXT,
    ip_address VARCHAR(45),
    occurred_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX idx_audit_log_entity ON audit_log (entity, entity_id);
CREATE INDEX idx_audit_log_actor ON audit_log (actor_id, occurred_at);

INSERT INTO audit_log (id, actor_id, action, entity, details)
VALUES (1, NULL, 'migration', 'audit_log', 'table created by migration 005');

COMMIT;
