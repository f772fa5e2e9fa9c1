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
];
