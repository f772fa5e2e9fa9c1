// The schema, as versioned migrations applied in order (src/store/postgres/migrate.ts). Never edit
// one that has shipped: add the next version. Kept as text in a module, not .sql files, so that the
// build and every way of running the service carry them without a copy step.
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
];
