SET search_path = app, public;
SET TIME ZONE 'UTC';
SET statement_timeout = 5000;
SELECT id, email FROM users WHERE created_at > now() - INTERVAL '7 days';
