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
