-- The instances serving from this database, each writing its heartbeat every second
-- (src/store/postgres/instances.ts): quotas are divided among the live ones.
CREATE TABLE service_instances (
  id text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
