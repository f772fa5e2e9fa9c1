-- Where each webhook endpoint's deliveries stand, and which instance delivers to it, under a
-- lease of $3 ms (src/store/postgres/webhook-deliveries.ts). An endpoint seen for the first time,
-- or set to "now", starts at the feed's end: its newest event, or the purge horizon when later.
-- The url column holds the ledger's key (the endpoint's id; 'api:' and the id for the API's).

-- name: claim-deliveries
-- An endpoint's deliveries, leased to $2 for $3 ms unless another instance holds them; $4 the
-- types it takes (null: every one), counted when events are passed over.
UPDATE webhook_endpoints
SET lease_owner = $2, lease_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000),
  event_types = $4::text[]
WHERE url = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < clock_timestamp())
RETURNING url, position, attempt, due_at, stopped_entry, generation, skipped, last_attempt_at, last_event,
  last_status, last_error;

-- name: add-deliveries
-- An endpoint seen for the first time is added, starting after the newest event, or where the
-- row of key $5 stands (a file endpoint's URL, its key before version 1.7.0).
INSERT INTO webhook_endpoints (url, position, lease_owner, lease_until, event_types)
SELECT $1,
  COALESCE((SELECT position FROM webhook_endpoints WHERE url = $5::text),
    GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))),
  $2, clock_timestamp() + make_interval(secs => $3::double precision / 1000), $4::text[]
ON CONFLICT (url) DO NOTHING
RETURNING url, position, attempt, due_at, stopped_entry, generation, skipped, last_attempt_at, last_event,
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
  COALESCE(w.generation, 0) AS generation, COALESCE(w.skipped, 0) AS skipped, w.last_attempt_at, w.last_event,
  w.last_status, w.last_error
FROM unnest($1::text[]) AS u (url) LEFT JOIN webhook_endpoints w ON w.url = u.url;

-- name: set-delivery-position
-- $2 null: the feed's end. The events of its types between where it stood and there are counted
-- as skipped (none when it moves back).
WITH target AS (
  SELECT COALESCE($2::bigint,
    GREATEST(COALESCE((SELECT max(seq) FROM pet_events), 0), (SELECT purged_through FROM pet_event_feed))) AS position
)
INSERT INTO webhook_endpoints (url, position, generation)
SELECT $1, position, 1 FROM target
ON CONFLICT (url) DO UPDATE SET position = EXCLUDED.position, attempt = 0, due_at = NULL, stopped_entry = '',
  generation = webhook_endpoints.generation + 1,
  skipped = webhook_endpoints.skipped + (
    SELECT count(*) FROM pet_events e
    WHERE e.seq > webhook_endpoints.position AND e.seq <= EXCLUDED.position
      AND (webhook_endpoints.event_types IS NULL OR e.type = ANY (webhook_endpoints.event_types)))
RETURNING url, position, attempt, due_at, stopped_entry, generation, skipped, last_attempt_at, last_event,
  last_status, last_error;

-- name: log-attempt
INSERT INTO webhook_attempts (endpoint, event, attempted_at, status, result, duration_ms, error, resend)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8);

-- name: list-attempts
-- Oldest first, after attempt $2, of event $3 only when given: one more than $4, to tell whether more follow.
SELECT n, event, attempted_at, status, result, duration_ms, error, resend
FROM webhook_attempts
WHERE endpoint = $1 AND n > $2 AND ($3::bigint IS NULL OR event = $3)
ORDER BY n LIMIT $4 + 1;

-- name: add-resend
INSERT INTO webhook_resends (endpoint, event) VALUES ($1, $2);

-- name: next-resend
SELECT n, event FROM webhook_resends WHERE endpoint = $1 ORDER BY n LIMIT 1;

-- name: delete-resend
DELETE FROM webhook_resends WHERE endpoint = $1 AND n = $2;
