-- The change feed (src/store/postgres/event-feed.ts, docs/events.md). The store's epoch is
-- store_epoch's (functions/store-position.sql), read with every page.

-- name: read-epoch
SELECT store_epoch() AS epoch;

-- name: read-position
-- Where a server stands: what each instance reads of its primary and its replicas every 100 ms
-- (src/store/postgres/replicas.ts).
SELECT store_epoch() AS epoch,
  GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed)) AS position,
  pg_is_in_recovery() AS standby;

-- name: list-pet-events
-- Where the page is read (its epoch, position and server) once, in a subquery of one row, not once
-- per event.
SELECT s.epoch, s.position, s.standby,
  f.purged_through, e.seq, e.type, e.pet_id, e.version, e.occurred_at, e.name, e.category_id, e.status
FROM (
  SELECT store_epoch() AS epoch,
    GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed)) AS position,
    pg_is_in_recovery() AS standby
) s
CROSS JOIN pet_event_feed f
LEFT JOIN LATERAL (
  SELECT * FROM pet_events WHERE seq > GREATEST($1::bigint, f.purged_through) ORDER BY seq LIMIT $2
) e ON true;

-- name: purge-pet-events
WITH oldest AS MATERIALIZED (SELECT seq, occurred_at FROM pet_events ORDER BY seq LIMIT $2::int),
  cut AS (
    SELECT COALESCE(min(seq) FILTER (WHERE occurred_at >= now() - make_interval(secs => $1::double precision)),
      max(seq) + 1) AS stop
    FROM oldest
  ),
  gone AS (DELETE FROM pet_events WHERE seq < (SELECT stop FROM cut) RETURNING seq, type),
  moved AS (
    UPDATE pet_event_feed SET purged_through = GREATEST(purged_through, (SELECT max(seq) FROM gone))
    WHERE EXISTS (SELECT FROM gone)
  ),
  -- Events of its types a webhook endpoint had not accepted are passed over: counted in its state.
  passed AS (
    SELECT w.url, count(*) AS events FROM webhook_endpoints w
    JOIN gone g ON g.seq > w.position AND (w.event_types IS NULL OR g.type = ANY (w.event_types))
    GROUP BY w.url
  ),
  skipped AS (UPDATE webhook_endpoints w SET skipped = w.skipped + p.events FROM passed p WHERE w.url = p.url),
  -- The attempts and resends of the events gone go with them.
  attempts AS (DELETE FROM webhook_attempts WHERE event < (SELECT stop FROM cut)),
  resends AS (DELETE FROM webhook_resends WHERE event < (SELECT stop FROM cut))
  SELECT count(*)::int AS purged FROM gone;
