// The schema, as versioned migrations applied in order (src/store/postgres/migrate.ts). Never edit
// one that has shipped: add the next version. Kept as text in a module, not .sql files, so that the
// build and every way of running the service carry them without a copy step.
import { CHANGES_MIGRATION } from './changes-migration.js';
import { ORDERS_MIGRATION } from './orders-migration.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'create pets',
    sql: `
      CREATE TABLE pets (
        -- Assigned by the database: unique across instances, increasing, never reused (gaps allowed).
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL,
        category_id bigint NOT NULL,
        status text
      );
      -- A filtered page reads an index range: (status, id) after the cursor, in id order.
      CREATE INDEX pets_status_id ON pets (status, id);
    `,
  },
  {
    version: 2,
    name: 'create idempotency_keys',
    sql: `
      -- The Idempotency-Key of each create that sent one, for the retention period. Written by the
      -- same statement as the pet (so in the same transaction). It holds the pet's fields as well
      -- as its id: a retry that waited for a concurrent first request reads the record through
      -- ON CONFLICT, which sees the committed row, while a plain read of pets in that statement
      -- would not (its snapshot predates the wait). No foreign key, for the same single statement.
      CREATE TABLE idempotency_keys (
        scope bytea NOT NULL,           -- SHA-256 of the API key that sent it
        key text NOT NULL,
        pet_id bigint NOT NULL,
        name text NOT NULL,
        category_id bigint NOT NULL,
        status text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key)
      );
      -- The purge deletes the oldest records first.
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `,
  },
  {
    version: 3,
    name: 'create service_instances',
    sql: `
      -- The instances serving from this database, each writing its heartbeat every second
      -- (src/store/postgres/instances.ts): quotas are divided among the live ones.
      CREATE TABLE service_instances (
        id text PRIMARY KEY,
        seen_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 4,
    name: 'pet versions and change keys',
    sql: `
      -- Each pet's version, for If-Match: 1 when added, one more for each change. A constant
      -- default makes this a change of the catalogue only (PostgreSQL 11 and later): no row is
      -- rewritten, and instances of the previous release, which insert without it, store 1.
      ALTER TABLE pets ADD COLUMN version bigint NOT NULL DEFAULT 1;
      -- The Idempotency-Key of each change (updatePet, deletePet) that sent one, with the request
      -- it stands for and its answer: the pet as the change left it, or none after a removal.
      -- Claimed first in the change's transaction, so that a retry sent meanwhile waits for it.
      CREATE TABLE change_keys (
        scope bytea NOT NULL,           -- SHA-256 of the API key that sent it
        operation text NOT NULL,
        key text NOT NULL,
        request text NOT NULL,
        pet_id bigint NOT NULL,
        name text,
        category_id bigint,
        status text,
        version bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, operation, key)
      );
      CREATE INDEX change_keys_created_at ON change_keys (created_at);
    `,
  },
  {
    version: 5,
    name: 'pet events and webhook deliveries',
    sql: `
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
      -- One row per change, written by the triggers below in the change's own transaction.
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
      -- Every statement that writes pets takes this transaction-level lock (the create lock of
      -- migration 1's statements) before it writes, so events take their seq and commit one
      -- transaction at a time: a reader that sees seq n has seen every seq before it. The trigger
      -- takes it again (a no-op then) so that a change made by hand is ordered too.
      CREATE FUNCTION record_pet_events() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM pg_advisory_xact_lock(1885697139, 'pets'::regclass::oid::int);
        IF TG_OP = 'INSERT' THEN
          INSERT INTO pet_events (seq, type, pet_id, version, occurred_at, name, category_id, status)
          SELECT nextval('pet_events_seq'), 'pet.created', id, version, clock_timestamp(), name, category_id, status
          FROM (SELECT * FROM new_rows ORDER BY id) AS added;
        ELSIF TG_OP = 'UPDATE' THEN
          -- A patch that changes nothing keeps the version, and is no event.
          INSERT INTO pet_events (seq, type, pet_id, version, occurred_at, name, category_id, status)
          SELECT nextval('pet_events_seq'), 'pet.updated', id, version, clock_timestamp(), name, category_id, status
          FROM (SELECT n.* FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.version <> o.version ORDER BY n.id) AS changed;
        ELSE
          INSERT INTO pet_events (seq, type, pet_id, version, occurred_at)
          SELECT nextval('pet_events_seq'), 'pet.deleted', id, version + 1, clock_timestamp()
          FROM (SELECT * FROM old_rows ORDER BY id) AS removed;
        END IF;
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER pets_created AFTER INSERT ON pets REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION record_pet_events();
      CREATE TRIGGER pets_updated AFTER UPDATE ON pets REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION record_pet_events();
      CREATE TRIGGER pets_deleted AFTER DELETE ON pets REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION record_pet_events();
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
    `,
  },
  {
    version: 6,
    name: 'webhook endpoints an operator can see and move',
    sql: `
      -- How each endpoint's last attempt went (listWebhookEndpoints), and a count of the positions
      -- an operator set (setWebhookPosition): a delivery under way records its outcome only if the
      -- count is still the one it started with, so it never moves a position set meanwhile back.
      ALTER TABLE webhook_endpoints
        ADD COLUMN generation integer NOT NULL DEFAULT 0,
        ADD COLUMN last_attempt_at timestamptz,
        ADD COLUMN last_event bigint,
        ADD COLUMN last_status integer,
        ADD COLUMN last_error text;
    `,
  },
  ORDERS_MIGRATION,
  CHANGES_MIGRATION,
];
