CREATE TABLE pets (
  -- Assigned by the database: unique across instances, increasing, never reused (gaps allowed).
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  category_id bigint NOT NULL,
  status text
);
-- A filtered page reads an index range: (status, id) after the cursor, in id order.
CREATE INDEX pets_status_id ON pets (status, id);
