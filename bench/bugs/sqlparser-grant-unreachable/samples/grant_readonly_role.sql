GRANT SELECT ON customers, orders TO reporting;
GRANT SELECT, INSERT, UPDATE ON orders TO app_writer;
REVOKE DELETE ON orders FROM app_writer;
