-- Store positions (docs/replicas.md): where a read or a write stands in the feed, so that a client
-- that has seen a position is never served an older state, by a replica or the primary. A read's
-- position is the feed's end in its own snapshot, written out in each read statement
-- (statements/pet-reads.sql says why it is not a function here).

-- The position of a write, for the final row of its statement (its events are written by the
-- triggers, after that row is made): the seq of its first event, which the write lock noted; a
-- snapshot that sees it sees the write. A write that took no lock (a keyed replay) answers with
-- the newest seq taken, which is at or after the replayed write's.
-- One expression without a subquery, so PostgreSQL inlines it into the statement that calls it.
CREATE OR REPLACE FUNCTION write_position() RETURNS bigint LANGUAGE sql VOLATILE AS $fn$
  SELECT COALESCE(NULLIF(current_setting('petstore.feed_next', true), '')::bigint,
    pg_sequence_last_value('pet_events_seq'), 0)
$fn$;

-- The store's epoch (docs/events.md): from what a restore changes and a row cannot bring back: the
-- cluster's system identifier (pg_dump restored elsewhere), the timeline WAL is written on
-- (point-in-time recovery, a failover), the database's oid (a recreated database) and the pets
-- table's (a schema dropped and restored), with the feed row's random epoch. A streaming replica
-- has its primary's: the same cluster, database and table, replaying the same timeline; promoted,
-- it writes a timeline of its own, so an epoch of its own. PL/pgSQL, so that each connection plans
-- it once: a SQL function that is not inlined is planned again at every call.
CREATE OR REPLACE FUNCTION store_epoch() RETURNS text LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  RETURN (SELECT substr(md5(concat_ws(':',
      (SELECT system_identifier FROM pg_control_system()),
      CASE WHEN pg_is_in_recovery()
        THEN lpad(upper(to_hex(COALESCE((SELECT received_tli FROM pg_stat_wal_receiver),
          (SELECT timeline_id FROM pg_control_checkpoint())))), 8, '0')
        ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)
      END,
      (SELECT oid FROM pg_database WHERE datname = current_database()),
      'pets'::regclass::oid,
      f.epoch)), 1, 8)
    FROM pet_event_feed f);
END
$fn$;
