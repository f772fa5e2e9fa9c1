-- Orders (src/store/postgres/orders.ts). A placed order holds its pet; one past expires_at
-- reads as expired at once, and the sweep (expire_orders) frees its pet within a second.
CREATE TABLE orders (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pet_id bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('placed', 'completed', 'cancelled', 'expired')),
  placed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  closed_at timestamptz,
  cancel_reason text
);
-- At most one placed order per pet, whatever the code above it does: the guard that no pet
-- is held twice (so never sold twice).
CREATE UNIQUE INDEX orders_one_hold ON orders (pet_id) WHERE status = 'placed';
CREATE INDEX orders_due ON orders (expires_at) WHERE status = 'placed';
CREATE INDEX orders_pet_id ON orders (pet_id, id);
-- The Idempotency-Key of each order operation that sent one, with its request and the
-- order's state in its answer (what a retry replays). Claimed first, so a retry waits for it.
CREATE TABLE order_keys (
  scope bytea NOT NULL,
  operation text NOT NULL,
  key text NOT NULL,
  request text NOT NULL,
  order_id bigint,
  status text,
  closed_at timestamptz,
  cancel_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, operation, key)
);
CREATE INDEX order_keys_created_at ON order_keys (created_at);

-- What each order function (functions/orders.sql) answers: an outcome, its detail, and the
-- order (times in ms).
CREATE TYPE order_answer AS (
  outcome text, detail text, id bigint, pet_id bigint, status text,
  placed_at double precision, expires_at double precision, closed_at double precision, cancel_reason text
);
