-- 0007: a chain version per season (ADR-52, docs/eventstore.md "Hash chain").
--
-- Chain version 1 hashes each event's data into its link; version 2 hashes sha256(data)
-- instead, so an export may leave a secret payload out (R-14, a redacted auditor export) and
-- still prove its chain with the digest it keeps. Every season stored before this migration
-- keeps version 1 (the column is added with default 1, filling existing rows); a season whose
-- first event is appended afterwards gets version 2 (the default from then on). The store reads
-- the version with the stream head and hashes with it; `seksenbir import` of a version-1 export
-- sets it to 1 in the transaction of the season's first append.

ALTER TABLE streams ADD COLUMN chain smallint NOT NULL DEFAULT 1 CHECK (chain IN (1, 2));
ALTER TABLE streams ALTER COLUMN chain SET DEFAULT 2;

COMMENT ON COLUMN streams.chain IS
    '1: hash covers the data (seksenbir/event-chain/1); 2: hash covers sha256(data) (/2)';
