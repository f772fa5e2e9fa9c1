-- Changes and removals of pets (src/store/postgres/pet-changes.ts), each conditional on the pet's
-- version (If-Match's; null for any): the check and the write are one step. Each takes the write
-- lock first (functions/lock-pet-writes.sql), and then locks its rows, which it reads as they are
-- once the locks are its own: FOR UPDATE reads the latest committed version, where a plain read
-- gives the statement's snapshot, taken before the wait. So a rejection names the version that
-- refused (never the stale one sent), and a pet removed meanwhile is not there (404, not 412). The
-- patch is merge_patch's (functions/merge-patch.sql). Each row carries the write's position
-- (functions/store-position.sql).

-- name: update-pet
-- One change without a key. The row of "target" tells a pet that is not there (no row) from one at
-- another version (no "changed"). $2-$5 the patch (merge_patch's), $6 the versions it may have.
WITH write_lock AS MATERIALIZED (
  SELECT lock_pet_writes()
), target AS MATERIALIZED (
  SELECT version AS current FROM pets, write_lock WHERE id = $1 FOR UPDATE OF pets
), changed AS (
  UPDATE pets p SET (name, category_id, status, version) = (
      SELECT (m).name, (m).category_id, (m).status, (m).version
      FROM (SELECT merge_patch(p, $2::text, $3::bigint, $4::boolean, $5::text) AS m) patched)
  FROM target
  WHERE p.id = $1 AND ($6::bigint[] IS NULL OR p.version = ANY ($6::bigint[]))
  RETURNING p.id, p.name, p.category_id, p.status, p.version
)
SELECT changed.*, target.current, write_position() AS position FROM target LEFT JOIN changed ON true;

-- name: update-pets
-- Several changes without a key, at most one per pet, each conditional on its own versions. The
-- rows are locked in id order first, so that batches of several instances never deadlock;
-- "current" is null for a pet that is not there. $6 holds each change's versions as an array's
-- text ('{3,4}'), null for any. The rows to change are named as an array, which the primary key
-- finds: as a join alone, the generic plan a connection cached while pets was nearly empty (a new
-- database) read the whole table for every batch until the next ANALYZE.
WITH sent AS MATERIALIZED (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::boolean[], $5::text[], $6::text[])
    WITH ORDINALITY AS sent(id, name, category_id, set_status, status, versions, ord)
), write_lock AS MATERIALIZED (
  SELECT lock_pet_writes()
), locked AS MATERIALIZED (
  SELECT id, version FROM pets, write_lock WHERE id IN (SELECT id FROM sent) ORDER BY id FOR UPDATE OF pets
), changed AS (
  UPDATE pets p SET (name, category_id, status, version) = (
      SELECT (m).name, (m).category_id, (m).status, (m).version
      FROM (SELECT merge_patch(p, s.name, s.category_id, s.set_status, s.status) AS m) patched)
  FROM sent s JOIN locked l ON l.id = s.id
  WHERE p.id = ANY (ARRAY(SELECT id FROM locked)) AND p.id = s.id
    AND (s.versions IS NULL OR p.version = ANY (s.versions::bigint[]))
  RETURNING s.ord, p.id, p.name, p.category_id, p.status, p.version
)
SELECT changed.id, changed.name, changed.category_id, changed.status, changed.version, locked.version AS current,
  write_position() AS position
FROM sent LEFT JOIN locked ON locked.id = sent.id LEFT JOIN changed ON changed.ord = sent.ord
ORDER BY sent.ord;

-- name: delete-pet
-- One removal without a key; $2 the versions it may have.
WITH write_lock AS MATERIALIZED (
  SELECT lock_pet_writes()
), target AS MATERIALIZED (
  SELECT version AS current FROM pets, write_lock WHERE id = $1 FOR UPDATE OF pets
), removed AS (
  DELETE FROM pets USING target
  WHERE id = $1 AND ($2::bigint[] IS NULL OR pets.version = ANY ($2::bigint[])) RETURNING id
)
SELECT removed.id, NULL AS name, NULL AS category_id, NULL AS status, NULL AS version, target.current,
  write_position() AS position
FROM target LEFT JOIN removed ON true;

-- name: change-pets
-- Changes that arrived together of which some carry an Idempotency-Key, or remove a pet:
-- change_batch (functions/change-batch.sql), one statement. $1 the kinds ('update', 'remove'),
-- then each change's values as update-pets takes them, then its key's scope, operation, key and
-- request (nulls without one).
SELECT *, write_position() AS position
FROM change_batch($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::boolean[], $6::text[],
  $7::text[], $8::bytea[], $9::text[], $10::text[], $11::text[]);
