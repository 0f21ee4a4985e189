-- Guobiao schema 8, PostgreSQL's dialect of ../0008_tournament_owner_token.sql: the owner's fencing token.

ALTER TABLE tournaments ADD COLUMN owner_token bigint NOT NULL DEFAULT 0;
