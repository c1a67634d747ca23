// Package seasonstore is the season service's durable layer: where an
// enrollment and every accepted submission are kept, from the
// participant's first call to the close's export (docs/contract.md, the
// Index's section; specification 3, 4, 7.4).
//
// One interface, Store, has two backends sharing one implementation and
// one schema's meaning: embedded SQLite (OpenSQLite, no cgo, so the binary
// builds wherever Caddy does) and PostgreSQL (OpenPostgres, from a URL, so
// that replicas of the service behind one frontal share one season). The
// schema is versioned and embedded, migrated on open by goose; replicas
// opening together take PostgreSQL's advisory lock, so one migrates.
//
// What the store promises, on both backends:
//
//   - An acknowledged write is committed, and on disk, before the call
//     returns: SQLite in WAL mode with synchronous=FULL and one writer;
//     PostgreSQL with a committed transaction and synchronous_commit on.
//   - One enrollment per key (cle) and per DID on each track, enforced by
//     UNIQUE constraints, so that two replicas racing cannot both win.
//   - One submission counts per enrollment and task: the last accepted
//     before the close. Resending the bytes that are already the last
//     accepted version answers the receipt already issued and records
//     nothing.
//   - The close is a row set in a transaction that every submission reads
//     in its own transaction, under a lock the close must wait for: a
//     submission racing the close is either recorded, and exported with
//     its receipt, or refused with ErrTrackClosed, never both.
//
// No secret is kept: the season token only as its SHA-256, the Trust Layer
// key only as its SHA-256 (the enrollment's cle). Receipts are signed by
// the caller; the store keeps the bytes it is handed.
package seasonstore
