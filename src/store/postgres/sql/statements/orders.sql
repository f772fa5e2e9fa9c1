-- Orders (src/store/postgres/orders.ts). The writes that arrive together are one call of
-- order_batch (functions/orders.sql). Reads are plain statements: an order reads as
-- order_status_at and order_closed_at (functions/order-status.sql) give it at the statement's time,
-- so a placed order past its expires_at reads as expired by the database's clock. Times in ms.

-- name: write-orders
SELECT *, write_position() AS position
FROM order_batch($1::text[], $2::bigint[], $3::int[], $4::text[], $5::boolean[], $6::int[], $7::bytea[],
  $8::text[], $9::text[], $10::text[]);

-- name: get-order
-- The order $1 if it is the client $2's, or anyone's when $2 is null (the store's staff): another
-- client's order is not found, by the same statement as an id that never existed. One row even
-- when none is found (a null id), to carry the position read at (functions/store-position.sql).
SELECT o.*, f.position, f.standby
FROM (SELECT GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))
    AS position, pg_is_in_recovery() AS standby) f
LEFT JOIN LATERAL (
  SELECT id, pet_id, placed_by, order_status_at(status, expires_at, statement_timestamp()) AS status,
    (extract(epoch FROM placed_at) * 1000)::float8 AS placed_at,
    (extract(epoch FROM expires_at) * 1000)::float8 AS expires_at,
    (extract(epoch FROM order_closed_at(status, expires_at, closed_at, statement_timestamp())) * 1000)::float8
      AS closed_at,
    cancel_reason
  FROM orders WHERE id = $1 AND ($2::text IS NULL OR placed_by = $2)
) o ON true;

-- name: list-orders
-- A page after the cursor $1, of one pet ($2) or any, of one status as read ($3) or any, of one
-- client ($5) or every client's; one row with a null id when it is empty, as get-order.
SELECT p.*, f.position, f.standby
FROM (SELECT GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))
    AS position, pg_is_in_recovery() AS standby) f
LEFT JOIN LATERAL (
  SELECT * FROM (
    SELECT id, pet_id, placed_by, order_status_at(status, expires_at, statement_timestamp()) AS status,
      (extract(epoch FROM placed_at) * 1000)::float8 AS placed_at,
      (extract(epoch FROM expires_at) * 1000)::float8 AS expires_at,
      (extract(epoch FROM order_closed_at(status, expires_at, closed_at, statement_timestamp())) * 1000)::float8
        AS closed_at,
      cancel_reason
    FROM orders WHERE id > $1 AND ($2::bigint IS NULL OR pet_id = $2) AND ($5::text IS NULL OR placed_by = $5)
  ) o
  WHERE ($3::text IS NULL OR o.status = $3) ORDER BY id LIMIT $4
) p ON true;

-- name: expire-orders
-- The sweep every instance runs each second (expire_orders, functions/orders.sql).
SELECT expire_orders() AS expired;
