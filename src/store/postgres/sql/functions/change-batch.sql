-- Changes (kinds 'update', 'remove') that arrived together, at most one per pet and one per
-- key, in one statement and one transaction, served in the order given. The write lock
-- comes first; every writer of change_keys takes it before it writes one and commits before
-- it lets go, so the next statement (a new snapshot: this function is volatile) sees every
-- key recorded before it, and waits for none. A recorded key responds from its record
-- (replayed, or reused for another request); the others change as update-pets does (the
-- rows locked in id order, each conditional on its versions, $7's text as '{3,4}', null for
-- any, patched by merge_patch) and record their result with their key only if they changed:
-- a rejection (missing, failed) records nothing. A change sent while the first with its key
-- is under way waits on the lock, then finds the record. Each key and pet is found through its index whatever the
-- statistics say: a plan cached while change_keys was nearly empty (a new database, its first
-- minute) scanned the whole table for every batch until the next ANALYZE, each batch slower
-- than the last (docs/performance/changes-with-a-key.md, "Changes with a key"). Hence one subquery per key, which
-- no join method replaces, and no sequential scan.
CREATE OR REPLACE FUNCTION change_batch(kinds text[], ids bigint[], names text[], category_ids bigint[],
  set_status boolean[], statuses text[], versions text[], k_scopes bytea[], k_operations text[],
  k_keys text[], k_requests text[])
RETURNS TABLE (outcome text, id bigint, name text, category_id bigint, status text, version bigint,
  current bigint)
LANGUAGE plpgsql SET enable_seqscan = off AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM lock_pet_writes();
  RETURN QUERY
  WITH sent AS MATERIALIZED (
    SELECT * FROM unnest(kinds, ids, names, category_ids, set_status, statuses, versions,
      k_scopes, k_operations, k_keys, k_requests)
      WITH ORDINALITY AS s(kind, id, name, category_id, set_status, status, versions, scope, operation,
        key, request, ord)
  ), recorded AS MATERIALIZED (
    SELECT x.ord, (x.k).request, (x.k).pet_id, (x.k).name, (x.k).category_id, (x.k).status, (x.k).version
    FROM (
      SELECT s.ord, (SELECT k FROM change_keys k
          WHERE k.scope = s.scope AND k.operation = s.operation AND k.key = s.key) AS k
      FROM sent s WHERE s.key IS NOT NULL OFFSET 0
    ) x
    WHERE (x.k).request IS NOT NULL
  ), fresh AS MATERIALIZED (
    SELECT * FROM sent s WHERE s.ord NOT IN (SELECT r.ord FROM recorded r)
  ), locked AS MATERIALIZED (
    SELECT p.id, p.version FROM pets p WHERE p.id = ANY (ARRAY(SELECT f.id FROM fresh f)) ORDER BY p.id FOR UPDATE
  ), updated AS (
    UPDATE pets p SET (name, category_id, status, version) = (
      SELECT (m).name, (m).category_id, (m).status, (m).version
      FROM (SELECT merge_patch(p, f.name, f.category_id, f.set_status, f.status) AS m) patched)
    FROM fresh f JOIN locked l ON l.id = f.id
    WHERE f.kind = 'update' AND p.id = f.id AND (f.versions IS NULL OR p.version = ANY (f.versions::bigint[]))
    RETURNING f.ord, p.id, p.name, p.category_id, p.status, p.version
  ), removed AS (
    DELETE FROM pets p USING fresh f JOIN locked l ON l.id = f.id
    WHERE f.kind = 'remove' AND p.id = f.id AND (f.versions IS NULL OR p.version = ANY (f.versions::bigint[]))
    RETURNING f.ord, p.id
  ), changed AS (
    SELECT u.ord, u.id, u.name, u.category_id, u.status, u.version FROM updated u
    UNION ALL SELECT r.ord, r.id, NULL, NULL, NULL, NULL FROM removed r
  ), keyed AS (
    INSERT INTO change_keys (scope, operation, key, request, pet_id, name, category_id, status, version)
    SELECT f.scope, f.operation, f.key, f.request, c.id, c.name, c.category_id, c.status, c.version
    FROM changed c JOIN fresh f ON f.ord = c.ord WHERE f.key IS NOT NULL
  )
  SELECT CASE WHEN r.ord IS NOT NULL THEN CASE WHEN r.request = s.request THEN 'replayed' ELSE 'reused' END
      WHEN l.id IS NULL THEN 'missing' WHEN c.ord IS NULL THEN 'failed' ELSE 'changed' END,
    COALESCE(r.pet_id, c.id), COALESCE(r.name, c.name), COALESCE(r.category_id, c.category_id),
    COALESCE(r.status, c.status), COALESCE(r.version, c.version), l.version
  FROM sent s LEFT JOIN recorded r ON r.ord = s.ord LEFT JOIN locked l ON l.id = s.id AND r.ord IS NULL
    LEFT JOIN changed c ON c.ord = s.ord
  ORDER BY s.ord;
END
$fn$;
