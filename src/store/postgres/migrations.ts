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
];
