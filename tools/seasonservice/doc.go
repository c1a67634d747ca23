// Package seasonservice is the season service's intake
// (proveit.arkforge.tech; specification 3, 4, 7.4, 9.1): where a
// participant enrolls with its Trust Layer key and hands in its
// submissions, and where a season's published files are served. It is a
// plain net/http Handler over a seasonstore.Store; the Caddy module in
// caddy-module/season.go serves it.
//
// The flow goes one way: a request, the checks below, the store, and
// later the close's export. Nothing is recorded before every check has
// passed, and nothing answered hints at a score or at a proof's validity.
//
//	GET  /v1/season/{n}                  the season's state, computed at each call
//	POST /v1/season/{n}/enroll           X-Api-Key; {piste, agent, stack, lien_preuves}
//	POST /v1/season/{n}/submit           Authorization: Bearer <jeton>; one submission
//	GET  /v1/season/{n}/{piste}/{file}   a published file, byte for byte
//
// Enrollment asks Trust Layer who the key is (GET /v1/keys/identity) and
// keeps exactly an entry of inscriptions.json: the key only as its SHA-256
// (cle), the season token only as its SHA-256. A submission is checked by
// the replay's own entry check (score.EntryCheck, the same code the replay
// reports "rejected at entry" with), then by the enrollment's DID, and
// recorded with a receipt the season's key signs: Ed25519 over the
// canonical JSON (Python's json.dumps with sort_keys, separators (",",":")
// and ensure_ascii) of the receipt without its signature.
//
// Whether a track is open is computed at each call from its
// pre-registration record (ouverture <= now <= cloture, to the second, both
// bounds included), never from a stored flag. A new version is refused
// once the record's close has passed, inside the store's transaction, so
// that a submission racing the close is either recorded with its receipt
// or refused; the operator's close of the store (CloseTrack), after the
// record's cloture, fences the export.
//
// Every answer is a JSON object with Content-Type application/json;
// charset=utf-8 and the no-cache headers of the corpus's contract (section
// 2), every refusal {"erreur", "message"} (plus "pointeur" and "regle" for
// a 422). The API key, the season token and the receipt key never appear
// in a log, an error or an answer.
package seasonservice
