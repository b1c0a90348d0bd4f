-- 0013 (assigned as 0013; numbered in sequence here, migrate.py refuses a gap: renumber at
-- merge to the next free number): a season's chat, in a stream of its own (issue 24, ADR-91).
--
-- Chat events have their own versions and hash chain (`seksenbir/chat-chain/1`), so a flood of
-- messages never conflicts with or waits on a season's commands or Divans. A message's text is
-- kept beside its event (chat_texts), never in the hashed data (which holds its sha256), so ops
-- can erase an unlawful text with a recorded act and the chain still verifies (ADR-92). Events
-- are only ever inserted; a text is only ever set to NULL by an erase. A bey's last-read
-- marker per channel (chat_marks) only moves forward.

CREATE TABLE chat_events (
    season_id    text NOT NULL CHECK (length(season_id) BETWEEN 1 AND 100),
    version      bigint NOT NULL CHECK (version >= 1),
    event_id     uuid NOT NULL UNIQUE,
    type         text NOT NULL,
    data         bytea NOT NULL,
    seat         smallint,
    recorded_at  timestamptz NOT NULL,
    prev_hash    bytea NOT NULL,
    hash         bytea NOT NULL,
    PRIMARY KEY (season_id, version)
);

CREATE TABLE chat_texts (
    season_id    text NOT NULL,
    version      bigint NOT NULL,
    text         text CHECK (length(text) <= 1000),
    erased_at    timestamptz,
    PRIMARY KEY (season_id, version),
    FOREIGN KEY (season_id, version) REFERENCES chat_events (season_id, version)
);

CREATE TABLE chat_marks (
    season_id    text NOT NULL,
    seat         smallint NOT NULL,
    channel      text NOT NULL CHECK (length(channel) BETWEEN 1 AND 80),
    read_to      bigint NOT NULL,
    PRIMARY KEY (season_id, seat, channel)
);
