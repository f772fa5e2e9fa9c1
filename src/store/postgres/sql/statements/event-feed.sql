-- The change feed (src/store/postgres/event-feed.ts, docs/events.md). The store's epoch comes from
-- what a restore changes and a row cannot bring back: the cluster's system identifier (pg_dump
-- restored elsewhere), the timeline WAL is written on (point-in-time recovery, a failover), the
-- database's oid (a recreated database) and the pets table's (a schema dropped and restored), with
-- the feed row's random epoch.

-- name: read-epoch
SELECT substr(md5(concat_ws(':',
    (SELECT system_identifier FROM pg_control_system()),
    substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8),
    (SELECT oid FROM pg_database WHERE datname = current_database()),
    'pets'::regclass::oid,
    f.epoch)), 1, 8) AS epoch
FROM pet_event_feed f;

-- name: list-pet-events
SELECT substr(md5(concat_ws(':',
    (SELECT system_identifier FROM pg_control_system()),
    substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8),
    (SELECT oid FROM pg_database WHERE datname = current_database()),
    'pets'::regclass::oid,
    f.epoch)), 1, 8) AS epoch,
  f.purged_through, e.seq, e.type, e.pet_id, e.version, e.occurred_at, e.name, e.category_id, e.status
FROM pet_event_feed f
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
  gone AS (DELETE FROM pet_events WHERE seq < (SELECT stop FROM cut) RETURNING seq),
  moved AS (
    UPDATE pet_event_feed SET purged_through = GREATEST(purged_through, (SELECT max(seq) FROM gone))
    WHERE EXISTS (SELECT FROM gone)
  )
  SELECT count(*)::int AS purged FROM gone;
