package trustlayer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// The log's shape: entries of others surround each of ours, so that no
// inclusion path is empty and no entry sits at the tree's right edge; the
// global log index differs from the shard-local one, as Rekor's do once a
// log has been sharded.
const (
	fillersBefore    = 5
	fillersAfter     = 2
	globalIndexShift = 122_000_000
)

// rekorLog is the test transparency log: one shard, its signing key.
type rekorLog struct {
	name   string
	key    *ecdsa.PrivateKey
	der    []byte
	treeID int64
	tree   *tree
	// entries by uuid; checkpoints by tree size, signed once so that two
	// reads of an entry give the same bytes.
	entries     map[string]*rekorEntry
	checkpoints map[uint64]string
}

type rekorEntry struct {
	uuid           string
	body           string // std base64 of the canonical entry JSON
	integratedTime int64
	logIndex       int64 // global
	localIndex     uint64
	set            string
}

func newRekorLog(name string) (*rekorLog, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	id, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, err
	}
	l := &rekorLog{name: name, key: key, der: der, treeID: id.Int64() + 1<<62, tree: newTree(),
		entries: map[string]*rekorEntry{}, checkpoints: map[uint64]string{}}
	l.filler(fillersBefore)
	return l, nil
}

func (l *rekorLog) keyHash() uint32 { return keyHash(l.der) }

// logID is hex SHA-256 of the log key's DER SPKI.
func (l *rekorLog) logID() string {
	sum := sha256.Sum256(l.der)
	return hex.EncodeToString(sum[:])
}

// filler appends n leaves standing for other people's entries.
func (l *rekorLog) filler(n int) {
	for range n {
		var b [32]byte
		rand.Read(b[:])
		l.tree.appendLeaf(leafHash(b[:]))
	}
}

// submit enters a hashedrekord v0.0.1 entry whose artifact is the UTF-8 of
// anchoredHex, signed by the submitter key, and returns it.
func (l *rekorLog) submit(anchoredHex string, submitter rekorKey, now time.Time) (*rekorEntry, error) {
	artifact := []byte(anchoredHex)
	digest := sha256.Sum256(artifact)
	sig, err := ecdsa.SignASN1(rand.Reader, submitter.priv, digest[:])
	if err != nil {
		return nil, err
	}
	body := pyjson.Canonical(pyjson.Object{
		{Key: "apiVersion", Value: "0.0.1"},
		{Key: "kind", Value: "hashedrekord"},
		{Key: "spec", Value: pyjson.Object{
			{Key: "data", Value: pyjson.Object{{Key: "hash", Value: pyjson.Object{
				{Key: "algorithm", Value: "sha256"},
				{Key: "value", Value: hex.EncodeToString(digest[:])},
			}}}},
			{Key: "signature", Value: pyjson.Object{
				{Key: "content", Value: base64.StdEncoding.EncodeToString(sig)},
				{Key: "publicKey", Value: pyjson.Object{
					{Key: "content", Value: base64.StdEncoding.EncodeToString([]byte(submitter.pem))},
				}},
			}},
		}},
	})
	leaf := leafHash(body)
	local := l.tree.appendLeaf(leaf)
	l.filler(fillersAfter)
	e := &rekorEntry{
		uuid:           fmt.Sprintf("%016x%s", l.treeID, hex.EncodeToString(leaf)),
		body:           base64.StdEncoding.EncodeToString(body),
		integratedTime: now.Unix(),
		logIndex:       int64(local) + globalIndexShift,
		localIndex:     local,
	}
	// The SET signs the entry's canonical JSON with the global index.
	setMessage := proofs.SignedEntryPayload(e.body, e.integratedTime, l.logID(), e.logIndex)
	setDigest := sha256.Sum256(setMessage)
	set, err := ecdsa.SignASN1(rand.Reader, l.key, setDigest[:])
	if err != nil {
		return nil, err
	}
	e.set = base64.StdEncoding.EncodeToString(set)
	l.entries[e.uuid] = e
	return e, nil
}

// checkpoint is the signed note of the log at its current size.
func (l *rekorLog) checkpoint() (string, error) {
	size := l.tree.size()
	if cp, ok := l.checkpoints[size]; ok {
		return cp, nil
	}
	text := fmt.Sprintf("%s - %d\n%d\n%s\n", l.name, l.treeID, size, base64.StdEncoding.EncodeToString(l.tree.root()))
	signed, err := note.Sign(&note.Note{Text: text}, &noteSigner{name: l.name, hash: l.keyHash(), key: l.key})
	if err != nil {
		return "", err
	}
	l.checkpoints[size] = string(signed)
	return string(signed), nil
}

// noteSigner signs notes as Rekor does: ECDSA P-256 over SHA-256 of the
// note's text, DER, behind the four-byte key hint note.Sign puts first.
type noteSigner struct {
	name string
	hash uint32
	key  *ecdsa.PrivateKey
}

func (s *noteSigner) Name() string    { return s.name }
func (s *noteSigner) KeyHash() uint32 { return s.hash }
func (s *noteSigner) Sign(msg []byte) ([]byte, error) {
	digest := sha256.Sum256(msg)
	return ecdsa.SignASN1(rand.Reader, s.key, digest[:])
}

// RekorEntry is the log's answer for uuid, {uuid: entry}, with an inclusion
// proof and checkpoint at the log's current size.
func (tl *TrustLayer) RekorEntry(uuid string) ([]byte, error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	l := tl.log
	e, ok := l.entries[uuid]
	if !ok {
		return nil, ErrNotFound
	}
	cp, err := l.checkpoint()
	if err != nil {
		return nil, err
	}
	path := l.tree.inclusion(e.localIndex)
	hashes := make([]string, len(path))
	for i, h := range path {
		hashes[i] = hex.EncodeToString(h)
	}
	return json.Marshal(map[string]proofs.RekorEntry{uuid: {
		Body: e.body, IntegratedTime: e.integratedTime, LogID: l.logID(), LogIndex: e.logIndex,
		Verification: proofs.RekorVerification{
			InclusionProof: proofs.InclusionProof{Checkpoint: cp, Hashes: hashes, LogIndex: int64(e.localIndex),
				RootHash: hex.EncodeToString(l.tree.root()), TreeSize: int64(l.tree.size())},
			SignedEntryTimestamp: e.set,
		},
	}})
}
