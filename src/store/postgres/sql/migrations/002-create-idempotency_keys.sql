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
