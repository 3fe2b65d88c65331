/*
 * Migration 004: remove the columns left over from the old
 * newsletter integration. Data was exported on 2023-11-02.
 */
ALTER TABLE users DROP COLUMN newsletter_token;
ALTER TABLE users DROP COLUMN newsletter_opt_in;
DROP INDEX idx_users_newsletter;
DROP TABLE IF EXISTS newsletter_bounces;
DROP TABLE IF EXISTS newsletter_sends;
