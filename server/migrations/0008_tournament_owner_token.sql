-- Guobiao schema 8: the fencing token of a tournament's owner (docs/cluster.md "Fencing"), as rooms'
-- (schema 7). In a cluster every write of a tournament's log raises it in its transaction, and is
-- refused when a larger token (a newer owner) has already written. A single process does not use it.

ALTER TABLE tournaments ADD COLUMN owner_token INTEGER NOT NULL DEFAULT 0;
