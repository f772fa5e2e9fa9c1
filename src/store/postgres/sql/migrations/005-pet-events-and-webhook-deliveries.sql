-- The change feed (docs/events.md). One row names it: its epoch, which a restored or recreated
-- database does not share (a cursor from another one is expired, never misread), and the last
-- seq the retention purge removed.
CREATE TABLE pet_event_feed (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  epoch text NOT NULL,
  purged_through bigint NOT NULL DEFAULT 0
);
INSERT INTO pet_event_feed (epoch) VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 8));
CREATE SEQUENCE pet_events_seq AS bigint;
-- One row per change, written in the change's own transaction by the triggers of
-- functions/pet-events.sql.
CREATE TABLE pet_events (
  seq bigint PRIMARY KEY,
  type text NOT NULL,
  pet_id bigint NOT NULL,
  version bigint NOT NULL,
  occurred_at timestamptz NOT NULL,
  name text,
  category_id bigint,
  status text
);
-- Where each webhook endpoint's deliveries stand (src/webhooks/delivery.ts), and which
-- instance delivers to it: one at a time, under a lease that lapses if it dies.
CREATE TABLE webhook_endpoints (
  url text PRIMARY KEY,
  position bigint NOT NULL,
  attempt integer NOT NULL DEFAULT 0,
  due_at timestamptz,
  stopped_entry text NOT NULL DEFAULT '',
  lease_owner text,
  lease_until timestamptz
);
