// Package treefile is what the manifest's packages take from one file of a
// corpus tree, alike when manifest.Build lists it and when package verify
// checks it against its entry: the most bytes it may hold, the sums its
// entry records, and the strings that may be references it cites.
package treefile

import (
	"crypto/sha256"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// MaxSize is the most bytes a file of a corpus tree may hold, far above
// any body of the season (a few KiB): Build lists no larger file, and a
// server refuses a tree that holds one, that file read no further than
// this, so that a huge or sparse file put in the tree costs no memory at
// start-up or reload.
const MaxSize = 1 << 20

// Sums are what an entry records of its body: the SHA-256 of its bytes
// and the one behind its response_hash.
type Sums struct {
	Bytes, Response [sha256.Size]byte
}

// SumsOf is the Sums of body, which h has just checked (Hasher.Check).
func SumsOf(h *anchor.Hasher, body []byte) Sums {
	return Sums{Bytes: sha256.Sum256(body), Response: h.ResponseSum()}
}

// AppendCited appends every string value of the body h has just checked
// that may be a reference into a collection, but self (the body's own
// path): a reference starts with a slash, and most strings do not, so only
// those are copied; corpus.IsReference decides.
func AppendCited(refs []string, h *anchor.Hasher, self string) []string {
	h.Strings(func(text []byte) {
		if len(text) > 0 && text[0] == '/' && string(text) != self {
			refs = append(refs, string(text))
		}
	})
	return refs
}
