// Package receipt is the season service's receipt: what the service signs
// when it records a submission, so that a participant can prove what was
// accepted and when, and how anyone checks one (the service that issues
// it, the Index that checks each exported submission against its last
// receipt, a participant holding its own).
//
// A receipt's signature is Ed25519, by the season's receipt key, over the
// canonical JSON (Python's json.dumps with sort_keys=True, separators
// (",", ":") and ensure_ascii) of the receipt without its signature,
// written in standard base64.
package receipt

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Receipt is a recorded submission's receipt, members as the service
// writes them.
type Receipt struct {
	Season     int    `json:"saison"`
	Track      string `json:"piste"`
	Enrollment string `json:"inscription"`
	TaskID     string `json:"task_id"`
	SHA256     string `json:"sha256"`
	ReceivedAt string `json:"recue_le"`
	Replaces   bool   `json:"remplace"`
	Signature  string `json:"signature"`
}

// object is the receipt without its signature, as a Python value.
func object(r Receipt) pyjson.Object {
	return pyjson.Object{
		{Key: "saison", Value: pyjson.Number(strconv.Itoa(r.Season))},
		{Key: "piste", Value: r.Track},
		{Key: "inscription", Value: r.Enrollment},
		{Key: "task_id", Value: r.TaskID},
		{Key: "sha256", Value: r.SHA256},
		{Key: "recue_le", Value: r.ReceivedAt},
		{Key: "remplace", Value: r.Replaces},
	}
}

// Payload is the bytes a receipt's signature is over: the canonical JSON
// of the receipt without its signature.
func Payload(r Receipt) []byte { return pyjson.Canonical(object(r)) }

// Sign signs r (its Signature ignored) and returns the receipt's bytes:
// the canonical JSON of the receipt with its signature.
func Sign(key ed25519.PrivateKey, r Receipt) []byte {
	sig := ed25519.Sign(key, Payload(r))
	return pyjson.Canonical(append(object(r), pyjson.Member{Key: "signature", Value: base64.StdEncoding.EncodeToString(sig)}))
}

// Verify checks a receipt's signature with the season's public receipt
// key.
func Verify(pub ed25519.PublicKey, r Receipt) bool {
	sig, err := base64.StdEncoding.DecodeString(r.Signature)
	return err == nil && len(pub) == ed25519.PublicKeySize && ed25519.Verify(pub, Payload(r), sig)
}

// Decode reads a receipt as strictly as a submission (exact names, no
// duplicate or unknown member); name names it in errors.
func Decode(name string, data []byte) (Receipt, error) {
	var r Receipt
	err := season.DecodeStrict(name, data, &r)
	return r, err
}

// File is a track's recus.json, which the close exports beside the
// submissions: every receipt the service issued on the track, in the
// order issued, and the public half of the key that signed them.
type File struct {
	Season   int               `json:"saison"`
	Track    string            `json:"piste"`
	Key      string            `json:"cle_recus"` // Ed25519, standard base64
	Receipts []json.RawMessage `json:"recus"`
}

// FileName is where a track's folder of a season keeps its File.
const FileName = "recus.json"

// FileLimit bounds a File as its readers read it: a few hundred bytes a
// receipt, every version of every task of every enrollment.
const FileLimit = 64 << 20

// Last is what a File establishes: for each enrollment and task, the last
// receipt issued, which the exported submission must match.
type Last map[Task]Receipt

// Task names one enrollment's task.
type Task struct{ Enrollment, TaskID string }

// DecodeFile reads a recus.json strictly, checks every receipt's
// signature with the file's key and that each is of the file's season and
// track, and returns the last receipt of each task. name names the file in
// errors, with the JSON pointer and the rule.
func DecodeFile(name string, data []byte) (*File, Last, error) {
	var f File
	if err := season.DecodeStrict(name, data, &f); err != nil {
		return nil, nil, err
	}
	pub, err := base64.StdEncoding.DecodeString(f.Key)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return nil, nil, fmt.Errorf("%s /cle_recus: want an Ed25519 public key in standard base64", name)
	}
	last := Last{}
	for i, raw := range f.Receipts {
		at := fmt.Sprintf("%s /recus/%d", name, i)
		r, err := Decode(at, raw)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case !Verify(pub, r):
			return nil, nil, fmt.Errorf("%s/signature: does not verify with /cle_recus", at)
		case r.Season != f.Season || r.Track != f.Track:
			return nil, nil, fmt.Errorf("%s: of season %d, track %q, not the file's", at, r.Season, r.Track)
		}
		last[Task{r.Enrollment, r.TaskID}] = r
	}
	return &f, last, nil
}
