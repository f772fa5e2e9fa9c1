-- The change feed's rows (docs/events.md), written by triggers in each change's own transaction.
-- Every statement that writes pets takes the write lock (lock-pet-writes.sql) before it writes, so
-- events take their seq and commit one transaction at a time: a reader that sees seq n has seen
-- every seq before it. The trigger takes it again (a no-op then) so that a change made by hand is
-- ordered too.
CREATE OR REPLACE FUNCTION record_pet_events() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM lock_pet_writes();
  IF TG_OP = 'INSERT' THEN
    INSERT INTO pet_events (seq, type, pet_id, version, occurred_at, name, category_id, status)
    SELECT nextval('pet_events_seq'), 'pet.created', id, version, clock_timestamp(), name, category_id, status
    FROM (SELECT * FROM new_rows ORDER BY id) AS added;
  ELSIF TG_OP = 'UPDATE' THEN
    -- A patch that changes nothing keeps the version, and is no event.
    INSERT INTO pet_events (seq, type, pet_id, version, occurred_at, name, category_id, status)
    SELECT nextval('pet_events_seq'), 'pet.updated', id, version, clock_timestamp(), name, category_id, status
    FROM (
      SELECT n.* FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.version <> o.version ORDER BY n.id
    ) AS changed;
  ELSE
    INSERT INTO pet_events (seq, type, pet_id, version, occurred_at)
    SELECT nextval('pet_events_seq'), 'pet.deleted', id, version + 1, clock_timestamp()
    FROM (SELECT * FROM old_rows ORDER BY id) AS removed;
  END IF;
  RETURN NULL;
END
$fn$;
CREATE OR REPLACE TRIGGER pets_created AFTER INSERT ON pets REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_pet_events();
CREATE OR REPLACE TRIGGER pets_updated AFTER UPDATE ON pets REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_pet_events();
CREATE OR REPLACE TRIGGER pets_deleted AFTER DELETE ON pets REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_pet_events();
