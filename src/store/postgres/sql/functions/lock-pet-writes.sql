-- The write lock: every write to pets and orders takes it first, for its transaction (the
-- statements of src/store/postgres/sql/statements/, the functions here, and the triggers, for a
-- change made by hand). Creates take their ids, and every write records its events, under it, so
-- commits come in id and feed order: a page that shows an id shows every smaller id there will
-- ever be, and a reader of the feed that sees seq n has seen every seq before it. It always comes
-- before row locks, so writers cannot deadlock on it (docs/events.md). Its key is "pets" as ASCII
-- (0x70657473) and the table's oid, in the two-integer key space, so that services in other
-- schemas of the database do not wait.
--
-- The first time a transaction takes it, it notes the seq its first event will have
-- (petstore.feed_next, for write_position in store-position.sql): every seq before it belongs to a
-- transaction that has ended, and no other transaction takes one until this one ends.
CREATE OR REPLACE FUNCTION lock_pet_writes() RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(1885697139, 'pets'::regclass::oid::int);
  IF COALESCE(current_setting('petstore.feed_next', true), '') = '' THEN
    PERFORM set_config('petstore.feed_next', (SELECT last_value + is_called::int FROM pet_events_seq)::text, true);
  END IF;
END
$fn$;
