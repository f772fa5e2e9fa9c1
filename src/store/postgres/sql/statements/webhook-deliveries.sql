-- Where each webhook endpoint's deliveries stand, and which instance delivers to it, under a
-- lease of $3 ms (src/store/postgres/webhook-deliveries.ts). An endpoint seen for the first time,
-- or set to "now", starts at the feed's end: its newest event, or the purge horizon when later.

-- name: claim-deliveries
-- An endpoint's deliveries, leased to $2 for $3 ms unless another instance holds them.
UPDATE webhook_endpoints
SET lease_owner = $2, lease_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
WHERE url = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < clock_timestamp())
RETURNING url, position, attempt, due_at, stopped_entry, generation, last_attempt_at, last_event,
  last_status, last_error;

-- name: add-deliveries
-- An endpoint seen for the first time is added, starting after the newest event.
INSERT INTO webhook_endpoints (url, position, lease_owner, lease_until)
SELECT $1,
  GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed)),
  $2, clock_timestamp() + make_interval(secs => $3::double precision / 1000)
ON CONFLICT (url) DO NOTHING
RETURNING url, position, attempt, due_at, stopped_entry, generation, last_attempt_at, last_event,
  last_status, last_error;

-- name: record-deliveries
UPDATE webhook_endpoints SET position = $3, attempt = $4, due_at = $5, stopped_entry = $6,
  lease_until = clock_timestamp() + make_interval(secs => $7::double precision / 1000),
  last_attempt_at = $9, last_event = $10, last_status = $11, last_error = $12
WHERE url = $1 AND lease_owner = $2 AND generation = $8 RETURNING true AS recorded;

-- name: release-deliveries
UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE url = $1 AND lease_owner = $2;

-- name: read-deliveries
-- Each endpoint named; one not seen yet as it will start, after the feed's end.
SELECT u.url,
  COALESCE(w.position,
    GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed)))
    AS position,
  COALESCE(w.attempt, 0) AS attempt, w.due_at, COALESCE(w.stopped_entry, '') AS stopped_entry,
  COALESCE(w.generation, 0) AS generation, w.last_attempt_at, w.last_event, w.last_status, w.last_error
FROM unnest($1::text[]) AS u (url) LEFT JOIN webhook_endpoints w ON w.url = u.url;

-- name: set-delivery-position
-- $2 null: the feed's end.
INSERT INTO webhook_endpoints (url, position, generation)
VALUES ($1, COALESCE($2::bigint,
  GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))), 1)
ON CONFLICT (url) DO UPDATE SET position = EXCLUDED.position, attempt = 0, due_at = NULL, stopped_entry = '',
  generation = webhook_endpoints.generation + 1
RETURNING url, position, attempt, due_at, stopped_entry, generation, last_attempt_at, last_event,
  last_status, last_error;
