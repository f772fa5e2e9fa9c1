-- Reads of pets (src/store/postgres/pet-reads.ts): one by id, and pages in id order after a cursor
-- (keyset pagination). Each carries the newest event it reflects (its position, docs/replicas.md):
-- the feed's newest event, or the purge horizon when that is later, read in its statement, so in
-- its snapshot: events commit in seq order under the write lock, so what one snapshot sees of the
-- feed is a prefix, and it holds exactly the changes the snapshot's pets show. Written out in each
-- statement: a SQL function reading tables is not inlined, and PostgreSQL plans such a function
-- again at every call (a getPet cost the database 3.7 times its CPU). One row even for no pet (the LEFT JOIN), which
-- then has a null id. "standby": read on a replica still in recovery (src/store/postgres/replicas.ts).

-- name: get-pet
SELECT p.*, f.position, f.standby
FROM (SELECT GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))
    AS position, pg_is_in_recovery() AS standby) f
LEFT JOIN LATERAL (SELECT id, name, category_id, status, version FROM pets WHERE id = $1) p ON true;

-- name: list-pets
SELECT p.*, f.position, f.standby
FROM (SELECT GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))
    AS position, pg_is_in_recovery() AS standby) f
LEFT JOIN LATERAL (
  SELECT id, name, category_id, status, version FROM pets WHERE id > $1 ORDER BY id LIMIT $2
) p ON true;

-- name: list-pets-by-status
-- Two statements rather than one with "status = $1 OR $1 IS NULL", so that each keeps its index
-- (the primary key, or (status, id)).
SELECT p.*, f.position, f.standby
FROM (SELECT GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))
    AS position, pg_is_in_recovery() AS standby) f
LEFT JOIN LATERAL (
  SELECT id, name, category_id, status, version FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3
) p ON true;

-- name: ready
-- Whether the database responds, and holds the schema.
SELECT FROM pets LIMIT 0;
