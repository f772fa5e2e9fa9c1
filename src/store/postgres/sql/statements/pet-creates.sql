-- Creates of pets (src/store/postgres/pet-creates.ts), written in batches: one statement, so one
-- transaction and one commit, for every create of a batch, committed before it is served. Each
-- takes the write lock (functions/lock-pet-writes.sql) before it takes its ids: without it, a
-- batch holding id 4 could commit after the one holding 5, and a client that had paged past 5
-- would never see 4. Each row carries the write's position (functions/store-position.sql).

-- name: create-pet
WITH in_id_order AS MATERIALIZED (SELECT lock_pet_writes())
  INSERT INTO pets (name, category_id, status) SELECT $1, $2, $3 FROM in_id_order
  RETURNING id, name, category_id, status, false AS replayed, write_position() AS position;

-- name: create-pets
WITH in_id_order AS MATERIALIZED (SELECT lock_pet_writes()),
  new_pets AS MATERIALIZED (
    SELECT nextval('pets_id_seq'::regclass) AS id, sent.name, sent.category_id, sent.status, sent.ord
    FROM in_id_order, unnest($1::text[], $2::bigint[], $3::text[])
      WITH ORDINALITY AS sent(name, category_id, status, ord)
  ), inserted AS (
    INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
    SELECT id, name, category_id, status FROM new_pets
  )
  SELECT id, name, category_id, status, false AS replayed, write_position() AS position FROM new_pets ORDER BY ord;

-- name: create-pet-once
WITH recorded AS MATERIALIZED (
    SELECT pet_id, name, category_id, status FROM idempotency_keys WHERE scope = $4::bytea AND key = $5::text
  ), in_id_order AS MATERIALIZED (SELECT lock_pet_writes() WHERE NOT EXISTS (SELECT FROM recorded)),
  new_id AS MATERIALIZED (
    SELECT nextval('pets_id_seq'::regclass) AS id FROM in_id_order
  ), claimed AS (
    INSERT INTO idempotency_keys AS k (scope, key, pet_id, name, category_id, status)
    SELECT $4::bytea, $5::text, id, $1::text, $2::bigint, $3::text FROM new_id
    ON CONFLICT (scope, key) DO UPDATE SET scope = k.scope
    RETURNING k.pet_id, k.name, k.category_id, k.status, k.pet_id <> (SELECT id FROM new_id) AS replayed
  ), new_pet AS (
    INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
    SELECT pet_id, name, category_id, status FROM claimed WHERE NOT replayed
  )
  SELECT x.*, write_position() AS position FROM (
    SELECT pet_id AS id, name, category_id, status, replayed FROM claimed
    UNION ALL SELECT pet_id, name, category_id, status, true FROM recorded
  ) x;

-- name: create-pets-once
WITH sent AS MATERIALIZED (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bytea[], $5::text[])
      WITH ORDINALITY AS sent(name, category_id, status, scope, key, ord)
  ), recorded AS MATERIALIZED (
    SELECT x.ord, (x.k).pet_id, (x.k).name, (x.k).category_id, (x.k).status
    FROM (
      SELECT sent.ord, (SELECT k FROM idempotency_keys k WHERE k.scope = sent.scope AND k.key = sent.key) AS k
      FROM sent WHERE sent.key IS NOT NULL OFFSET 0
    ) x
    WHERE (x.k).pet_id IS NOT NULL
  ), in_id_order AS MATERIALIZED (
    SELECT lock_pet_writes() WHERE EXISTS (SELECT FROM sent WHERE ord NOT IN (SELECT ord FROM recorded))
  ), new_pets AS MATERIALIZED (
    SELECT nextval('pets_id_seq'::regclass) AS id, sent.*
    FROM in_id_order, sent WHERE ord NOT IN (SELECT ord FROM recorded)
  ), claimed AS (
    INSERT INTO idempotency_keys AS k (scope, key, pet_id, name, category_id, status)
    SELECT scope, key, id, name, category_id, status FROM new_pets WHERE key IS NOT NULL
    ON CONFLICT (scope, key) DO UPDATE SET scope = k.scope
    RETURNING k.scope, k.key, k.pet_id, k.name, k.category_id, k.status
  ), results AS MATERIALIZED (
    SELECT n.ord, c.pet_id AS id, c.name, c.category_id, c.status, c.pet_id <> n.id AS replayed
    FROM new_pets n JOIN claimed c ON c.scope = n.scope AND c.key = n.key
    UNION ALL SELECT ord, id, name, category_id, status, false FROM new_pets WHERE key IS NULL
  ), inserted AS (
    INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
    SELECT id, name, category_id, status FROM results WHERE NOT replayed
  )
  SELECT x.*, write_position() AS position FROM (
    SELECT ord, id, name, category_id, status, replayed FROM results
    UNION ALL SELECT ord, pet_id, name, category_id, status, true FROM recorded
    ORDER BY ord
  ) x;
