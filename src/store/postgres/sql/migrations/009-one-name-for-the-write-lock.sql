-- The lock every write to pets takes first is lock_pet_writes() (functions/lock-pet-writes.sql),
-- which the functions and the statements call by that name. Version 7's lock_feed() was the same
-- lock under another name.
DROP FUNCTION IF EXISTS lock_feed();
