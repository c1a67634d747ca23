package verify

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// Served is one entry of a manifest whose tree matched it: what a server
// answers at the entry's path.
type Served struct {
	Path   string
	Kind   manifest.Kind
	Status int
	// Body is the file's bytes, or an absent entry's absent body.
	Body []byte
	// SHA256 is the body's, in lowercase hex, as the manifest lists it.
	SHA256 string
}

// Load reads a track's manifest from src and compares the track's tree
// with it at Bytes depth, as manifest.Decode then Tree do: what a server
// does before it serves. On success it returns what serve made of each
// entry, in the manifest's order; otherwise the error Decode or Tree
// would return. sum is the SHA-256 of the manifest's bytes, in lowercase
// hex, returned whenever they could be read, error or not: a caller that
// pins the manifest refuses on it first.
//
// A large corpus's manifest is as large as its tree. It is read as a
// stream (manifest.Stream), its entries compared as they were listed and
// never held whole, so that memory holds little more than the tree and
// what serve keeps of it. Only a manifest the stream does not take is
// read again whole, by Decode.
func Load[T any](src io.ReadSeeker, tree fs.FS, track *corpus.Track, serve func(Served) T) (served []T, sum string, err error) {
	// The tree is read while the manifest is: on a large corpus these are
	// the two halves of a server's start-up.
	var contents map[string]treeFile
	var readErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		contents, readErr = readTree(tree, track)
	}()
	header, list, sum, streamed := stream(src, sizeOf(src))
	<-read
	n, at, path := len(list.entries), list.at, list.path
	if !streamed {
		if _, err := src.Seek(0, io.SeekStart); err != nil {
			return nil, "", err
		}
		data, err := io.ReadAll(src)
		if err != nil {
			return nil, "", err
		}
		sum = anchor.SHA256(data)
		if header, err = manifest.Decode(data); err != nil {
			return nil, sum, err
		}
		n, at, path = len(header.Resources), wholeEntries(header), wholePaths(header)
	}
	if header.Track != track.Name {
		return nil, sum, fmt.Errorf("the manifest is the track %q's", header.Track)
	}
	c := newComparison(header, track, Bytes, nil, n, at, path)
	served = make([]T, n)
	problems := c.byEntry(contents, readErr, func(i int, e listed, body []byte) {
		served[i] = serve(Served{Path: e.path, Kind: e.kind, Status: e.status, Body: body, SHA256: e.sha256})
	})
	if len(problems) > 0 {
		return nil, sum, &MismatchError{Problems: problems}
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

// listedEntry is what the comparison at Bytes depth reads of an entry.
type listedEntry struct {
	pathEnd, end uint32 // where the entry's path and SHA-256 end in the text
	status       int32
	kind         uint8 // in kinds
	fileField    bool  // the file field names the path's file
}

// kinds are the kinds an entry may have.
var kinds = [...]manifest.Kind{manifest.Document, manifest.Absent, manifest.System}

// at returns the i-th entry.
func (l *listing) at(i int) listed {
	e := &l.entries[i]
	return listed{path: l.path(i), sha256: l.text[e.pathEnd:e.end], kind: kinds[e.kind], status: int(e.status), fileField: e.fileField}
}

// path returns the path of the i-th entry.
func (l *listing) path(i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.entries[i-1].end
	}
	return l.text[start:l.entries[i].pathEnd]
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
// unknown kind, which Tree names, or a manifest too large for the
// listing's offsets, which Load reads whole.
var errNotListed = errors.New("not listed")

// stream reads a manifest that manifest.Stream takes as a stream; for any
// other, ok is false. It returns the header, the entries and the SHA-256
// of the manifest's bytes.
func stream(src io.Reader, size int64) (header *manifest.Manifest, l listing, sum string, ok bool) {
	// As Encode writes a manifest, an entry takes about 480 bytes, of
	// which its path and SHA-256 about 18%.
	l.entries = make([]listedEntry, 0, size/400+1)
	var text strings.Builder
	text.Grow(int(size / 5))
	hash := sha256.New()
	header, err := manifest.Stream(io.TeeReader(src, hash), func(e *manifest.LeanEntry) error {
		kind := slices.Index(kinds[:], e.Kind)
		if kind < 0 || e.Status != int(int32(e.Status)) || text.Len()+len(e.Path)+len(e.BytesSHA256) > math.MaxUint32 {
			return errNotListed
		}
		text.Write(e.Path)
		pathEnd := uint32(text.Len())
		text.Write(e.BytesSHA256)
		l.entries = append(l.entries, listedEntry{pathEnd: pathEnd, end: uint32(text.Len()), status: int32(e.Status), kind: uint8(kind),
			fileField: e.File != nil && corpus.IsFileOf(string(e.File), string(e.Path))})
		return nil
	})
	if err != nil {
		return nil, listing{}, "", false
	}
	// The text is kept for the life of a server: not with room to spare.
	if l.text = text.String(); text.Cap()-text.Len() > text.Len()/32 {
		l.text = strings.Clone(l.text)
	}
	return header, l, anchor.HexSHA256([sha256.Size]byte(hash.Sum(nil))), true
}
