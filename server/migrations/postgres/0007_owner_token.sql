-- Guobiao schema 7, PostgreSQL's dialect of ../0007_owner_token.sql: the owner's fencing token.

ALTER TABLE rooms ADD COLUMN owner_token bigint NOT NULL DEFAULT 0;
