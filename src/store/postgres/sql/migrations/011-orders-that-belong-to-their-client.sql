-- Orders belong to the client that placed them (src/store/order-store.ts): placed_by is the
-- client's name, null for an order placed before this version, which recorded no owner (the
-- store's staff alone see and move it). A client's placed orders are counted under the write
-- lock before each hold (place_held), so the cap per client holds across instances.
ALTER TABLE orders ADD COLUMN placed_by text;
-- A client's orders in id order (listOrders, its pages), and its placed ones (the cap).
CREATE INDEX orders_placed_by ON orders (placed_by, id);
CREATE INDEX orders_held_by ON orders (placed_by) WHERE status = 'placed';
ALTER TYPE order_result ADD ATTRIBUTE placed_by text;
-- The order functions take the client, whether it sees every order, and the cap: those of
-- version 10 go (functions/orders.sql holds them as they run now).
DROP FUNCTION IF EXISTS order_batch(text[], bigint[], integer[], bytea[], text[], text[], text[]);
DROP FUNCTION IF EXISTS place_held(bigint, integer, bytea, text, text);
DROP FUNCTION IF EXISTS finish_held(bigint, text, bytea, text, text);
