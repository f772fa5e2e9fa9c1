-- How many instances serve from this database (src/store/postgres/instances.ts).

-- name: beat
-- This instance's heartbeat, and the others seen within 5 seconds. Rows of instances that stopped
-- without removing theirs (a crash, SIGKILL) go after an hour.
WITH beat AS (
  INSERT INTO service_instances (id, seen_at) VALUES ($1, now())
  ON CONFLICT (id) DO UPDATE SET seen_at = now()
), gone AS (
  DELETE FROM service_instances WHERE seen_at < now() - interval '1 hour'
)
SELECT count(*)::int AS others FROM service_instances WHERE id <> $1 AND seen_at > now() - interval '5 seconds';

-- name: leave
DELETE FROM service_instances WHERE id = $1;
