-- Blog engine schema (PostgreSQL and SQLite compatible subset).
-- Run on an empty database; see docs/deploy.md for the upgrade path.

DROP TABLE IF EXISTS post_tags;
DROP TABLE IF EXISTS comments;
DROP TABLE IF EXISTS tags;
DROP TABLE IF EXISTS posts;
DROP TABLE IF EXISTS authors;

CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    username VARCHAR(40) NOT NULL UNIQUE,
    email VARCHAR(255) NOT NULL UNIQUE,
    bio TEXT,
    avatar_url VARCHAR(500),
    role VARCHAR(16) NOT NULL DEFAULT 'writer',
    joined_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (role IN ('writer', 'editor', 'admin'))
);

CREATE TABLE posts (
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors (id),
    slug VARCHAR(200) NOT NULL UNIQUE,
    title VARCHAR(200) NOT NULL,
    summary VARCHAR(500),
    body TEXT NOT NULL,
    status VARCHAR(12) NOT NULL DEFAULT 'draft',
    word_count INTEGER DEFAULT 0 CHECK (word_count >= 0),
    published_at TIMESTAMP,
    updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT posts_status_check CHECK (status IN ('draft', 'review', 'published', 'archived')),
    CHECK (status <> 'published' OR published_at IS NOT NULL)
);

CREATE TABLE tags (
    id INTEGER PRIMARY KEY,
    name VARCHAR(50) NOT NULL UNIQUE,
    color CHAR(7) DEFAULT '#888888'
);

CREATE TABLE post_tags (
    post_id INTEGER NOT NULL,
    tag_id INTEGER NOT NULL,
    CONSTRAINT post_tags_pk PRIMARY KEY (post_id, tag_id),
    FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE,
    FOREIGN KEY (tag_id) REFERENCES tags (id) ON DELETE CASCADE
);

CREATE TABLE comments (
    id INTEGER PRIMARY KEY,
    post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    parent_id INTEGER REFERENCES comments (id) ON DELETE SET NULL,
    author_name VARCHAR(80) NOT NULL,
    author_email VARCHAR(255),
    body TEXT NOT NULL,
    approved BOOLEAN NOT NULL DEFAULT FALSE,
    spam_score REAL DEFAULT 0.0,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (spam_score >= 0.0 AND spam_score <= 1.0)
);

CREATE INDEX idx_posts_author ON posts (author_id);
CREATE INDEX idx_posts_published ON posts (status, published_at);
CREATE INDEX idx_comments_post ON comments (post_id, created_at);
CREATE UNIQUE INDEX idx_tags_name ON tags (name);

CREATE VIEW published_posts AS
SELECT p.id, p.slug, p.title, p.summary, a.username AS author, p.published_at
FROM posts p
JOIN authors a ON a.id = p.author_id
WHERE p.status = 'published';

INSERT INTO authors (id, username, email, role) VALUES
    (1, 'admin', 'admin@example.org', 'admin'),
    (2, 'jdoe', 'jane.doe@example.org', 'editor');

INSERT INTO tags (id, name, color) VALUES
    (1, 'announcements', '#d73a49'),
    (2, 'engineering', '#0366d6'),
    (3, 'how-to', '#28a745');

INSERT INTO posts (id, author_id, slug, title, body, status, published_at) VALUES
    (1, 1, 'hello-world', 'Hello, world', 'We''re live! More posts soon.', 'published', TIMESTAMP '2024-02-01 09:00:00');

INSERT INTO post_tags (post_id, tag_id) VALUES (1, 1);
