-- A pet after a JSON Merge Patch (RFC 7396) of the fields the patch names: a null name or category
-- keeps the pet's; p_set_status says whether it names a status, whose null removes it. Its version
-- grows by one when a value changes, and not otherwise. The changes of statements/pet-changes.sql
-- and change-batch.sql set what it returns, from the row as the update sees it (locked, current).
-- A single expression, so that the planner inlines it: no call per row.
CREATE OR REPLACE FUNCTION merge_patch(pet pets, p_name text, p_category_id bigint, p_set_status boolean,
  p_status text) RETURNS pets
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ROW(pet.id, COALESCE(p_name, pet.name), COALESCE(p_category_id, pet.category_id),
    CASE WHEN p_set_status THEN p_status ELSE pet.status END,
    pet.version + CASE WHEN (pet.name, pet.category_id, pet.status) IS DISTINCT FROM
      (COALESCE(p_name, pet.name), COALESCE(p_category_id, pet.category_id),
        CASE WHEN p_set_status THEN p_status ELSE pet.status END) THEN 1 ELSE 0 END)::pets
$fn$;
