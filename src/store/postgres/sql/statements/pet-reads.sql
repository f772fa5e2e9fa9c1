-- Reads of pets (src/store/postgres/pet-reads.ts): one by id, and pages in id order after a cursor
-- (keyset pagination). A page carries the newest event it reflects (its position), read in the
-- page's statement, so in its snapshot: events commit in seq order under the write lock, so what
-- one snapshot sees of the feed is a prefix, and it holds exactly the changes the snapshot's pets
-- show. One row even for an empty page (the LEFT JOIN), which then has a null id. The feed's end
-- is its newest event, or the purge horizon when that is later.

-- name: get-pet
SELECT id, name, category_id, status, version FROM pets WHERE id = $1;

-- name: list-pets
SELECT p.*, f.position
FROM (
  SELECT GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))
    AS position
) f
LEFT JOIN LATERAL (
  SELECT id, name, category_id, status, version FROM pets WHERE id > $1 ORDER BY id LIMIT $2
) p ON true;

-- name: list-pets-by-status
-- Two statements rather than one with "status = $1 OR $1 IS NULL", so that each keeps its index
-- (the primary key, or (status, id)).
SELECT p.*, f.position
FROM (
  SELECT GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))
    AS position
) f
LEFT JOIN LATERAL (
  SELECT id, name, category_id, status, version FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3
) p ON true;

-- name: ready
-- Whether the database responds, and holds the schema.
SELECT FROM pets LIMIT 0;
