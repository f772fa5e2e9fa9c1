-- The bookkeeping of src/store/postgres/migrate.ts: which versions of migrations/ are applied.

-- name: lock-schema
-- One migrate at a time, across instances: $1 is "petstore" as ASCII.
SELECT pg_advisory_xact_lock($1);

-- name: create-schema-migrations
CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- name: applied-versions
SELECT version FROM schema_migrations;

-- name: record-version
INSERT INTO schema_migrations (version, name) VALUES ($1, $2);
