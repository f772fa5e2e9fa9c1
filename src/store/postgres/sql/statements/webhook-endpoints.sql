-- The webhook endpoints added through the API (src/store/postgres/webhook-endpoints.ts). A change
-- or a removal applies only at the version it was read at ($2).

-- name: add-endpoint
INSERT INTO api_webhook_endpoints (id, url, event_types, description, disabled, secrets)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING id, url, event_types, description, disabled, secrets, version, created_at;

-- name: get-endpoint
SELECT id, url, event_types, description, disabled, secrets, version, created_at
FROM api_webhook_endpoints WHERE id = $1;

-- name: list-endpoints
SELECT id, url, event_types, description, disabled, secrets, version, created_at
FROM api_webhook_endpoints ORDER BY created_at, id;

-- name: replace-endpoint
-- The endpoint as changed; as it is when at another version (changed false); no row when there is none.
WITH changed AS (
  UPDATE api_webhook_endpoints SET url = $3, event_types = $4, description = $5, disabled = $6, secrets = $7,
    version = version + 1
  WHERE id = $1 AND version = $2
  RETURNING id, url, event_types, description, disabled, secrets, version, created_at
)
SELECT true AS changed, * FROM changed
UNION ALL
SELECT false, id, url, event_types, description, disabled, secrets, version, created_at
FROM api_webhook_endpoints WHERE id = $1 AND NOT EXISTS (SELECT FROM changed);

-- name: remove-endpoint
-- Removes it with where its deliveries stand, its attempts and its resends ($3: its ledger key).
-- The endpoint as it was, and whether it was removed (not: it is at another version); no row when
-- there is none (the statement reads the rows as they were before its deletes).
WITH gone AS (DELETE FROM api_webhook_endpoints WHERE id = $1 AND version = $2 RETURNING id),
  state AS (DELETE FROM webhook_endpoints WHERE url = $3 AND EXISTS (SELECT FROM gone)),
  attempts AS (DELETE FROM webhook_attempts WHERE endpoint = $3 AND EXISTS (SELECT FROM gone)),
  resends AS (DELETE FROM webhook_resends WHERE endpoint = $3 AND EXISTS (SELECT FROM gone))
SELECT EXISTS (SELECT FROM gone) AS changed, id, url, event_types, description, disabled, secrets, version, created_at
FROM api_webhook_endpoints WHERE id = $1;
