-- Store positions (docs/replicas.md): where a read or a write stands in the feed, so that a client
-- that has seen a position is never served an older state, by a replica or the primary.

-- The position a snapshot reads at: its newest event, or the purge horizon when that is later.
-- Events commit in seq order under the write lock, and a replica replays commits in the primary's
-- order, so a snapshot that sees seq n sees every change up to it, on the primary and on a replica.
CREATE OR REPLACE FUNCTION feed_position() RETURNS bigint LANGUAGE sql STABLE AS $fn$
  SELECT GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))
$fn$;

-- The position of a write, for the final row of its statement (its events are written by the
-- triggers, after that row is made): the seq of its first event, which the write lock noted; a
-- snapshot that sees it sees the write. A write that took no lock (a keyed replay) answers with
-- the newest seq taken, which is at or after the replayed write's.
CREATE OR REPLACE FUNCTION write_position() RETURNS bigint LANGUAGE sql VOLATILE AS $fn$
  SELECT COALESCE(NULLIF(current_setting('petstore.feed_next', true), '')::bigint,
    (SELECT last_value FROM pet_events_seq))
$fn$;

-- The store's epoch (docs/events.md): from what a restore changes and a row cannot bring back: the
-- cluster's system identifier (pg_dump restored elsewhere), the timeline WAL is written on
-- (point-in-time recovery, a failover), the database's oid (a recreated database) and the pets
-- table's (a schema dropped and restored), with the feed row's random epoch. A streaming replica
-- has its primary's: the same cluster, database and table, replaying the same timeline; promoted,
-- it writes a timeline of its own, so an epoch of its own.
CREATE OR REPLACE FUNCTION store_epoch() RETURNS text LANGUAGE sql VOLATILE AS $fn$
  SELECT substr(md5(concat_ws(':',
      (SELECT system_identifier FROM pg_control_system()),
      CASE WHEN pg_is_in_recovery()
        THEN lpad(upper(to_hex(COALESCE((SELECT received_tli FROM pg_stat_wal_receiver),
          (SELECT timeline_id FROM pg_control_checkpoint())))), 8, '0')
        ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)
      END,
      (SELECT oid FROM pg_database WHERE datname = current_database()),
      'pets'::regclass::oid,
      f.epoch)), 1, 8)
  FROM pet_event_feed f
$fn$;
