-- Guobiao schema 7: the fencing token of the room's owner (docs/cluster.md "Fencing"). In a cluster
-- every write of a room's log raises it in its transaction, and is refused when a larger token
-- (a newer owner) has already written. A single process does not use it (0: no owner token yet).

ALTER TABLE rooms ADD COLUMN owner_token INTEGER NOT NULL DEFAULT 0;
