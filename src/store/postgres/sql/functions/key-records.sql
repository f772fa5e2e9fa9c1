-- Idempotency-Key records made before version 1.5.0 of the service are scoped to the digest of the
-- API key that sent them; since then, to the client's scope (src/auth/api-clients.ts,
-- clientScopeOf), so that a retry with the client's rotated key finds them. Each instance, once
-- its schema is current and before it serves, moves the records of the keys it accepts
-- (digests[i]) to their client's scope (scopes[i]): a retry sent across the upgrade still finds
-- its first response. Where the client's scope holds the same key already, the record stays (its
-- retry would have been a new request before, too). Instances starting together take turns on
-- an advisory lock; a create racing the move under the client's scope makes the move start again.
CREATE OR REPLACE FUNCTION adopt_key_records(digests bytea[], scopes bytea[]) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
  moved bigint := 0;
  n bigint;
BEGIN
  -- "petstore" and "keys" as ASCII: any constant shared by every instance.
  PERFORM pg_advisory_xact_lock(1885697139, 1801812339);
  LOOP
    BEGIN
      moved := 0;
      WITH adopted AS (SELECT * FROM unnest(digests, scopes) AS a(digest, scope)),
        picked AS (
          SELECT DISTINCT ON (a.scope, k.key) k.ctid AS row, a.scope
          FROM idempotency_keys k JOIN adopted a ON k.scope = a.digest
          WHERE NOT EXISTS (SELECT FROM idempotency_keys c WHERE c.scope = a.scope AND c.key = k.key)
          ORDER BY a.scope, k.key, k.created_at)
      UPDATE idempotency_keys k SET scope = p.scope FROM picked p WHERE k.ctid = p.row;
      GET DIAGNOSTICS n = ROW_COUNT;
      moved := moved + n;
      WITH adopted AS (SELECT * FROM unnest(digests, scopes) AS a(digest, scope)),
        picked AS (
          SELECT DISTINCT ON (a.scope, k.operation, k.key) k.ctid AS row, a.scope
          FROM change_keys k JOIN adopted a ON k.scope = a.digest
          WHERE NOT EXISTS (
            SELECT FROM change_keys c WHERE c.scope = a.scope AND c.operation = k.operation AND c.key = k.key)
          ORDER BY a.scope, k.operation, k.key, k.created_at)
      UPDATE change_keys k SET scope = p.scope FROM picked p WHERE k.ctid = p.row;
      GET DIAGNOSTICS n = ROW_COUNT;
      moved := moved + n;
      WITH adopted AS (SELECT * FROM unnest(digests, scopes) AS a(digest, scope)),
        picked AS (
          SELECT DISTINCT ON (a.scope, k.operation, k.key) k.ctid AS row, a.scope
          FROM order_keys k JOIN adopted a ON k.scope = a.digest
          WHERE NOT EXISTS (
            SELECT FROM order_keys c WHERE c.scope = a.scope AND c.operation = k.operation AND c.key = k.key)
          ORDER BY a.scope, k.operation, k.key, k.created_at)
      UPDATE order_keys k SET scope = p.scope FROM picked p WHERE k.ctid = p.row;
      GET DIAGNOSTICS n = ROW_COUNT;
      moved := moved + n;
      RETURN moved;
    EXCEPTION WHEN unique_violation THEN
      -- A record made under a client's scope meanwhile: look again.
    END;
  END LOOP;
END
$fn$;
