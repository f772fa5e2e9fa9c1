-- The order functions (src/store/postgres/orders.ts): each moves an order and its pet in one
-- statement.
CREATE OR REPLACE FUNCTION to_order_result(outcome text, detail text, o orders) RETURNS order_result
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT outcome, detail, o.id, o.pet_id, o.status,
    (extract(epoch FROM o.placed_at) * 1000)::float8, (extract(epoch FROM o.expires_at) * 1000)::float8,
    (extract(epoch FROM o.closed_at) * 1000)::float8, o.cancel_reason, o.placed_by
$fn$;

-- Every function below runs as one statement, so one transaction, and takes the write lock
-- (lock-pet-writes.sql) before it reads an order or a pet: the writes of pets and orders go one at
-- a time, and each statement after the lock sees what the one before it committed (a volatile
-- PL/pgSQL function takes a new snapshot per statement).

-- Expires the placed orders past expires_at (of one pet, or all) and frees their pets: one
-- version step and one pet.updated each. The caller holds the write lock.
CREATE OR REPLACE FUNCTION expire_held(only_pet bigint) RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  -- A variable, not clock_timestamp() in the condition: a volatile call would keep the
  -- partial indexes (orders_one_hold, orders_due) from being used, and scan every order.
  at timestamptz := clock_timestamp();
  freed bigint[];
BEGIN
  IF only_pet IS NULL THEN
    WITH expired AS (
      UPDATE orders SET status = 'expired', closed_at = expires_at
      WHERE status = 'placed' AND expires_at <= at RETURNING pet_id)
    SELECT array_agg(pet_id) INTO freed FROM expired;
  ELSE
    WITH expired AS (
      UPDATE orders SET status = 'expired', closed_at = expires_at
      WHERE status = 'placed' AND pet_id = only_pet AND expires_at <= at RETURNING pet_id)
    SELECT array_agg(pet_id) INTO freed FROM expired;
  END IF;
  IF freed IS NULL THEN
    RETURN 0;
  END IF;
  UPDATE pets SET status = 'available', version = version + 1 WHERE id = ANY (freed) AND status = 'pending';
  RETURN cardinality(freed);
END
$fn$;

-- The sweep every instance runs each second: the lock is taken only when an order is due.
CREATE OR REPLACE FUNCTION expire_orders() RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  at timestamptz := clock_timestamp();
BEGIN
  IF NOT EXISTS (SELECT FROM orders WHERE status = 'placed' AND expires_at <= at) THEN
    RETURN 0;
  END IF;
  PERFORM lock_pet_writes();
  PERFORM set_config('petstore.moving_holds', 'on', true);
  RETURN expire_held(NULL);
END
$fn$;

-- Claims an order operation's key: null when it is new (claimed now), else the recorded
-- result ('replayed') or 'reused' for another request. A claim made meanwhile is waited for.
CREATE OR REPLACE FUNCTION claim_order_key(k_scope bytea, k_operation text, k_key text, k_request text)
RETURNS order_result LANGUAGE plpgsql AS $fn$
DECLARE
  recorded order_keys;
  o orders;
BEGIN
  LOOP
    INSERT INTO order_keys (scope, operation, key, request) VALUES (k_scope, k_operation, k_key, k_request)
      ON CONFLICT DO NOTHING;
    IF FOUND THEN
      RETURN NULL;
    END IF;
    SELECT * INTO recorded FROM order_keys WHERE scope = k_scope AND operation = k_operation AND key = k_key;
    -- Purged in between: claim it anew.
    EXIT WHEN FOUND;
  END LOOP;
  IF recorded.request <> k_request THEN
    RETURN ROW('reused', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::order_result;
  END IF;
  SELECT * INTO o FROM orders WHERE id = recorded.order_id;
  o.status := recorded.status;
  o.closed_at := recorded.closed_at;
  o.cancel_reason := recorded.cancel_reason;
  RETURN to_order_result('replayed', NULL, o);
END
$fn$;

-- Records the response with a claimed key, or gives the claim up (a rejection records nothing).
CREATE OR REPLACE FUNCTION settle_order_key(k_scope bytea, k_operation text, k_key text, o orders) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  IF k_key IS NULL THEN
    RETURN;
  ELSIF o.id IS NULL THEN
    DELETE FROM order_keys WHERE scope = k_scope AND operation = k_operation AND key = k_key;
  ELSE
    UPDATE order_keys SET order_id = o.id, status = o.status, closed_at = o.closed_at, cancel_reason = o.cancel_reason
    WHERE scope = k_scope AND operation = k_operation AND key = k_key;
  END IF;
END
$fn$;

-- placeOrder of one pet for the client p_client, the caller holding the write lock and the
-- key's claim (if any): the pet held if it is available and the client holds fewer than p_max
-- placed orders (the lock makes the count exact across instances), and the key settled with the
-- response. A pet that cannot be held is the refusal's reason before the cap: what a request
-- names is wrong whatever the client holds.
CREATE OR REPLACE FUNCTION place_held(p_pet bigint, p_hold integer, p_client text, p_max integer,
  k_scope bytea, k_operation text, k_key text)
RETURNS order_result LANGUAGE plpgsql AS $fn$
DECLARE
  pet pets;
  placed orders;
  at timestamptz := date_trunc('milliseconds', clock_timestamp());
  last_id bigint;
  held boolean := false;
BEGIN
  -- Under the cap (the common case) the hold and its check are one statement, and the reason for a
  -- rejection is read only then; at the cap, the pet is read first, to refuse for the right reason.
  IF (SELECT count(*) FROM orders WHERE status = 'placed' AND placed_by = p_client) >= p_max THEN
    IF EXISTS (SELECT FROM pets WHERE id = p_pet AND status = 'available') THEN
      PERFORM settle_order_key(k_scope, k_operation, k_key, NULL::orders);
      RETURN ROW('limited', p_max::text, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::order_result;
    END IF;
  ELSE
    UPDATE pets SET status = 'pending', version = version + 1 WHERE id = p_pet AND status = 'available';
    held := FOUND;
  END IF;
  IF NOT held THEN
    PERFORM settle_order_key(k_scope, k_operation, k_key, NULL::orders);
    SELECT * INTO pet FROM pets WHERE id = p_pet;
    last_id := pg_sequence_last_value(pg_get_serial_sequence('pets', 'id')::regclass);
    RETURN ROW('unavailable',
      CASE WHEN pet.id IS NOT NULL THEN 'status:' || coalesce(pet.status, '')
        WHEN p_pet BETWEEN 1 AND last_id THEN 'removed' ELSE 'missing' END,
      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::order_result;
  END IF;
  INSERT INTO orders (pet_id, status, placed_at, expires_at, placed_by)
    VALUES (p_pet, 'placed', at, at + make_interval(secs => p_hold), p_client) RETURNING * INTO placed;
  PERFORM settle_order_key(k_scope, k_operation, k_key, placed);
  RETURN to_order_result('done', NULL, placed);
END
$fn$;

-- cancelOrder ('cancelled') and completeOrder ('completed') of a placed order, as place_held:
-- the order closed and its pet moved (available, or sold), one step; an order already so is
-- served as it is; any other state (expired included, once its expires_at passed) is a
-- conflict. The batch expired every hold that ended before it began. Only an order of the
-- client p_client is found, unless p_every (the store's staff): another client's is missing,
-- by the same statements as an id that never existed. A cancel is the customer's for the
-- client's own order, the store's for another's.
CREATE OR REPLACE FUNCTION finish_held(p_order bigint, p_to text, p_client text, p_every boolean,
  k_scope bytea, k_operation text, k_key text)
RETURNS order_result LANGUAGE plpgsql AS $fn$
DECLARE
  o orders;
BEGIN
  UPDATE orders SET status = p_to, closed_at = date_trunc('milliseconds', clock_timestamp()),
    cancel_reason = CASE WHEN p_to <> 'cancelled' THEN NULL
      WHEN placed_by IS NOT DISTINCT FROM p_client THEN 'customer' ELSE 'store' END
  WHERE id = p_order AND (p_every OR placed_by = p_client)
    AND order_status_at(status, expires_at, clock_timestamp()) = 'placed' RETURNING * INTO o;
  IF FOUND THEN
    UPDATE pets SET status = CASE WHEN p_to = 'completed' THEN 'sold' ELSE 'available' END,
      version = version + 1
    WHERE id = o.pet_id AND status = 'pending';
  ELSE
    SELECT * INTO o FROM orders WHERE id = p_order AND (p_every OR placed_by = p_client);
    IF o.id IS NULL THEN
      PERFORM settle_order_key(k_scope, k_operation, k_key, NULL::orders);
      RETURN ROW('missing', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)::order_result;
    END IF;
    IF o.status = 'placed' THEN
      -- Its hold ended since the batch began: it expires now, and frees its pet.
      PERFORM expire_held(o.pet_id);
      SELECT * INTO o FROM orders WHERE id = p_order;
    END IF;
    IF o.status <> p_to THEN
      PERFORM settle_order_key(k_scope, k_operation, k_key, NULL::orders);
      RETURN to_order_result('conflict', NULL, o);
    END IF;
  END IF;
  PERFORM settle_order_key(k_scope, k_operation, k_key, o);
  RETURN to_order_result('done', NULL, o);
END
$fn$;

-- Order operations that arrived together (a batch, src/store/postgres/orders.ts), in one
-- statement and one transaction: each is 'place' (targets: the pet; holds: its seconds;
-- max_holds: the client's cap), 'cancelled' or 'completed' (targets: the order; every: whether
-- the caller sees every client's orders), each for its client, served in the order given. Their keys
-- are claimed first, in key order, before the write lock: batches that claim several wait
-- on one another in one order, never in a cycle, and none waits for a key while it holds
-- the lock. A key already recorded responds at once (replayed, or reused). Then, under the
-- lock, each in turn, each seeing what the ones before it did.
CREATE OR REPLACE FUNCTION order_batch(kinds text[], targets bigint[], holds integer[], clients text[],
  every boolean[], max_holds integer[], k_scopes bytea[], k_operations text[], k_keys text[], k_requests text[])
RETURNS SETOF order_result
LANGUAGE plpgsql AS $fn$
DECLARE
  results order_result[] := array_fill(NULL::order_result, ARRAY[cardinality(kinds)]);
  i integer;
BEGIN
  FOR i IN SELECT k.i FROM generate_subscripts(kinds, 1) AS k(i) WHERE k_keys[k.i] IS NOT NULL
    ORDER BY k_scopes[k.i], k_operations[k.i], k_keys[k.i]
  LOOP
    results[i] := claim_order_key(k_scopes[i], k_operations[i], k_keys[i], k_requests[i]);
  END LOOP;
  PERFORM lock_pet_writes();
  PERFORM set_config('petstore.moving_holds', 'on', true);
  -- Every hold that ended is expired first, once for the batch: a pet it held is available to
  -- the places below, and an order it ended is no longer placed for the finishes.
  PERFORM expire_held(NULL);
  FOR i IN 1 .. cardinality(kinds) LOOP
    -- (A composite IS NOT NULL only when every field is: its outcome tells.)
    CONTINUE WHEN (results[i]).outcome IS NOT NULL;
    results[i] := CASE WHEN kinds[i] = 'place'
      THEN place_held(targets[i], holds[i], clients[i], max_holds[i], k_scopes[i], k_operations[i], k_keys[i])
      ELSE finish_held(targets[i], kinds[i], clients[i], every[i], k_scopes[i], k_operations[i], k_keys[i]) END;
  END LOOP;
  FOR i IN 1 .. cardinality(kinds) LOOP
    RETURN NEXT results[i];
  END LOOP;
END
$fn$;

-- A change of a held pet's status by anything but the order functions (updatePet, by hand)
-- cancels its order (pet_changed), and so does its removal (pet_deleted); an order already
-- past expires_at expires instead. A row trigger, so that the WHEN clause spares every
-- change that moves no status, and the moves the order functions make themselves (they set
-- petstore.moving_holds for their transaction, and close an order before they free its pet).
CREATE OR REPLACE FUNCTION release_hold() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  at timestamptz := date_trunc('milliseconds', clock_timestamp());
BEGIN
  -- The service's writes hold the write lock already; a change made by hand takes it here.
  PERFORM lock_pet_writes();
  UPDATE orders SET
    status = CASE WHEN expires_at <= at THEN 'expired' ELSE 'cancelled' END,
    closed_at = CASE WHEN expires_at <= at THEN expires_at ELSE at END,
    cancel_reason = CASE WHEN expires_at <= at THEN NULL
      WHEN TG_OP = 'UPDATE' THEN 'pet_changed' ELSE 'pet_deleted' END
  WHERE status = 'placed' AND pet_id = OLD.id;
  RETURN NULL;
END
$fn$;
CREATE OR REPLACE TRIGGER pets_updated_release_hold AFTER UPDATE OF status ON pets FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status
    AND current_setting('petstore.moving_holds', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION release_hold();
CREATE OR REPLACE TRIGGER pets_deleted_release_hold AFTER DELETE ON pets FOR EACH ROW
  EXECUTE FUNCTION release_hold();
