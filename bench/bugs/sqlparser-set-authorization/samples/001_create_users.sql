-- Migration 001: user accounts
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    email VARCHAR(255) NOT NULL UNIQUE,
    display_name VARCHAR(80) NOT NULL,
    password_hash CHAR(60) NOT NULL,
    locale VARCHAR(10) NOT NULL DEFAULT 'en-US',
    is_admin BOOLEAN NOT NULL DEFAULT FALSE,
    login_count INTEGER NOT NULL DEFAULT 0 CHECK (login_count >= 0),
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    last_login_at TIMESTAMP
);

CREATE UNIQUE INDEX idx_users_email ON users (email);
CREATE INDEX idx_users_created_at ON users (created_at);
