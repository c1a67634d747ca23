-- The season's enrollments and submissions (tools/seasonstore). Text that
-- the export orders by is COLLATE "C": byte order, whatever the server's
-- locale.

-- +goose Up

-- A track of a season. closed_at is the close (RFC 3339 UTC), NULL while
-- open: every submission reads it FOR SHARE in its own transaction, so the
-- close's UPDATE waits for those in flight and those after it see it.
CREATE TABLE tracks (
    season    INTEGER NOT NULL CHECK (season >= 1),
    track     TEXT    NOT NULL,
    closed_at TEXT,
    PRIMARY KEY (season, track)
);

-- An enrollment: exactly an entry of inscriptions.json, its token's hash,
-- and seq, the enrollment order the export keeps.
CREATE TABLE enrollments (
    seq            BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id             TEXT    NOT NULL CONSTRAINT enrollments_id_unique UNIQUE,
    season         INTEGER NOT NULL,
    track          TEXT    NOT NULL,
    token_sha256   BYTEA   NOT NULL CONSTRAINT enrollments_token_unique UNIQUE,
    agent          TEXT    NOT NULL,
    did            TEXT    NOT NULL,
    cle            TEXT    NOT NULL,
    historique_did TEXT    NOT NULL, -- a JSON array of DIDs, oldest first
    inscrit_le     TEXT    NOT NULL,
    tableau        TEXT    NOT NULL CHECK (tableau IN ('reference', 'communaute')),
    stack          TEXT    NOT NULL,
    lien_preuves   TEXT    NOT NULL,
    modele         TEXT,
    version        TEXT,
    framework      TEXT,
    prompt         TEXT,
    FOREIGN KEY (season, track) REFERENCES tracks (season, track),
    -- One enrollment per key and per DID on each track (spec 9.1): two
    -- replicas racing, the second insert waits for the first and fails.
    CONSTRAINT enrollments_one_per_key UNIQUE (season, track, cle),
    CONSTRAINT enrollments_one_per_did UNIQUE (season, track, did)
);

-- Every accepted version of a submission, in the order accepted (seq),
-- with the receipt issued for it. The last of an (enrollment, task) counts.
CREATE TABLE submissions (
    seq           BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    enrollment_id TEXT    NOT NULL REFERENCES enrollments (id),
    task_id       TEXT    COLLATE "C" NOT NULL,
    sha256        TEXT    NOT NULL,
    body          BYTEA   NOT NULL,
    receipt       BYTEA   NOT NULL,
    replaces      BOOLEAN NOT NULL,
    received_at   TEXT    NOT NULL
);

CREATE INDEX submissions_by_task ON submissions (enrollment_id, task_id, seq);
