-- The records of Idempotency-Keys (creates', changes' and orders'), purged after the retention
-- period ($1 s) by every instance on its own timer: the oldest first, $2 at a time; SKIP LOCKED
-- lets instances purge side by side.

-- name: purge-idempotency-keys
DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
  SELECT ctid FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1::double precision)
  ORDER BY created_at LIMIT $2::int FOR UPDATE SKIP LOCKED));

-- name: purge-change-keys
DELETE FROM change_keys WHERE ctid = ANY (ARRAY(
  SELECT ctid FROM change_keys WHERE created_at < now() - make_interval(secs => $1::double precision)
  ORDER BY created_at LIMIT $2::int FOR UPDATE SKIP LOCKED));

-- name: purge-order-keys
DELETE FROM order_keys WHERE ctid = ANY (ARRAY(
  SELECT ctid FROM order_keys WHERE created_at < now() - make_interval(secs => $1::double precision)
  ORDER BY created_at LIMIT $2::int FOR UPDATE SKIP LOCKED));

-- name: adopt-key-records
-- The records of the keys $1 (their digests) moved to their clients' scopes $2 (adopt_key_records,
-- functions/key-records.sql), once per instance before it serves.
SELECT adopt_key_records($1::bytea[], $2::bytea[]) AS moved;
