package manifest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Served is one entry of a manifest whose tree matched it: what a server
// answers at the entry's path.
type Served struct {
	Path   string
	Kind   Kind
	Status int
	// Body is the file's bytes, or an absent entry's absent body.
	Body []byte
	// SHA256 is the body's, in lowercase hex, as the manifest lists it.
	SHA256 string
}

// Load reads a track's manifest from src and checks the track's tree
// against it, as Decode then Check at Bytes depth do: what a server does
// before it serves. On success it returns what serve made of each entry,
// in the manifest's order; otherwise the error Decode or Check would
// return. sum is the SHA-256 of the manifest's bytes, in lowercase hex,
// returned whenever they could be read, error or not: a caller that pins
// the manifest refuses on it first.
//
// A large corpus's manifest is as large as its tree. It is read as a
// stream, checked entry by entry as it comes and never held whole, so that
// memory holds little more than the tree and what serve keeps of it. A
// manifest the direct reader does not take, and a tree that does not match,
// are read again whole, by Decode and Check, whose results and errors are
// the rule; serve may then be called again for an entry.
func Load[T any](src io.ReadSeeker, tree fs.FS, track *corpus.Track, serve func(Served) T) (served []T, sum string, err error) {
	// The tree is read while the manifest is: on a large corpus these are
	// the two halves of a server's start-up.
	var contents map[string]File
	var readErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		contents, readErr = ReadTree(tree, track)
	}()
	listed, sum, ok := stream(src, sizeOf(src), track)
	<-read
	if ok && readErr == nil {
		if answers, ok := checkListing(&listed, contents, track, serve); ok {
			return answers, sum, nil
		}
	}
	listed = listing{}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, "", err
	}
	data, err := io.ReadAll(src)
	if err != nil {
		return nil, "", err
	}
	sum = SHA256(data)
	m, err := Decode(data)
	if err != nil {
		return nil, sum, err
	}
	if m.Piste != track.Name {
		return nil, sum, fmt.Errorf("the manifest is the track %q's", m.Piste)
	}
	bodies, err := m.check(track, contents, readErr, Bytes)
	if err != nil {
		return nil, sum, err
	}
	served = make([]T, 0, len(m.Resources))
	for _, e := range m.Resources {
		body := bodies[e.Path]
		if e.Kind == Absent {
			body = corpus.AbsentBody(e.Path)
		}
		served = append(served, serve(Served{Path: e.Path, Kind: e.Kind, Status: e.Status, Body: body, SHA256: e.BytesSHA256}))
	}
	return served, sum, nil
}

// listing is a manifest's entries as stream read them.
type listing struct {
	// text is the path and SHA-256 of every entry, one after the other:
	// a server keeps them all for its life, as one string rather than two
	// for each entry.
	text    string
	entries []listedEntry
}

// listedEntry is what the check at Bytes depth reads of an entry.
type listedEntry struct {
	pathEnd, end uint32 // where the entry's path and SHA-256 end in the text
	status       int32
	kind         uint8 // in kinds
	fileField    bool  // the file field names the path's file
}

// kinds are the kinds an entry may have.
var kinds = [...]Kind{Document, Absent, System}

// entry returns the path, SHA-256 and kind of the i-th entry.
func (l *listing) entry(i int) (path, sum string, kind Kind) {
	start := uint32(0)
	if i > 0 {
		start = l.entries[i-1].end
	}
	e := &l.entries[i]
	return l.text[start:e.pathEnd], l.text[e.pathEnd:e.end], kinds[e.kind]
}

// sizeOf is the size of a manifest, 0 when unknown.
func sizeOf(src io.Seeker) int64 {
	size, err := src.Seek(0, io.SeekEnd)
	if _, errStart := src.Seek(0, io.SeekStart); err != nil || errStart != nil {
		return 0
	}
	return size
}

// errNotListed stops the stream at an entry it does not list: one of an
// unknown kind, which Check names, or a manifest too large for the
// listing's offsets, which Load reads whole.
var errNotListed = errors.New("not listed")

// stream reads a manifest that the direct reader takes whole, and whose
// header and shape are right, as a stream; for any other, ok is false.
// It returns the entries and the SHA-256 of the manifest's bytes.
func stream(src io.Reader, size int64, track *corpus.Track) (l listing, sum string, ok bool) {
	// As Encode writes a manifest, an entry takes about 480 bytes, of
	// which its path and SHA-256 about 18%.
	l.entries = make([]listedEntry, 0, size/400+1)
	var text strings.Builder
	text.Grow(int(size / 5))
	hash := sha256.New()
	var m Manifest
	var sh shape
	r := reader{src: io.TeeReader(src, hash)}
	r.each = func(e *Entry, lean *leanFields) error {
		kind := slices.Index(kinds[:], e.Kind)
		if kind < 0 || e.Status != int(int32(e.Status)) || text.Len()+len(lean.path)+len(lean.sha256) > math.MaxUint32 {
			return errNotListed
		}
		addToShape(&sh, lean.path, e.Kind, e.Status)
		text.Write(lean.path)
		pathEnd := uint32(text.Len())
		text.Write(lean.sha256)
		l.entries = append(l.entries, listedEntry{pathEnd: pathEnd, end: uint32(text.Len()), status: int32(e.Status), kind: uint8(kind),
			fileField: lean.file != nil && string(lean.file) == corpus.FileOf(string(lean.path))})
		return nil
	}
	if r.manifest(&m) != nil || sh.finish(m.Format) != nil || m.Piste != track.Name || len(m.headerProblems()) > 0 {
		return listing{}, "", false
	}
	// The text is kept for the life of a server: not with room to spare.
	if l.text = text.String(); text.Cap()-text.Len() > text.Len()/32 {
		l.text = strings.Clone(l.text)
	}
	return l, HexSHA256([sha256.Size]byte(hash.Sum(nil))), true
}

// checkListing is the check at Bytes depth of listed entries against the
// files of a tree, in parallel; ok is false if it finds a problem, which
// it leaves to Check to name.
func checkListing[T any](l *listing, contents map[string]File, track *corpus.Track, serve func(Served) T) (served []T, ok bool) {
	served = make([]T, len(l.entries))
	var mismatch atomic.Bool
	var files atomic.Int64 // entries answered with a file of the tree
	parallel(len(l.entries), func(i int) {
		path, sum, kind := l.entry(i)
		var c checkedEntry
		if c.read(path, kind, l.entries[i].fileField, contents) {
			c.checkBytes(path, kind, sum)
		}
		c.checkOwner(track, path, kind)
		if len(c.problems) > 0 {
			mismatch.Store(true)
			return
		}
		if kind != Absent {
			files.Add(1)
		}
		served[i] = serve(Served{Path: path, Kind: kind, Status: int(l.entries[i].status), Body: c.body, SHA256: sum})
	})
	// The paths are unique, being sorted: with every entry's file found,
	// a count tells that the tree holds no other.
	if mismatch.Load() || files.Load() != int64(len(contents)) {
		return nil, false
	}
	return served, true
}
