// Package corpus holds the frozen trees of the season's tracks and the rules
// that name their resources: how a file maps to a canonical path, which
// request targets are well formed, which paths are references into a
// collection, and the body served for a reference that has no file.
//
// Everything downstream (the manifest, the linter, the solver, the server)
// asks this package, so that the path grammar exists once, whichever track a
// path belongs to.
package corpus

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Track is one track of the season, as data: the folder of its served tree
// (also the manifest's "piste"), the single resource that states its rules,
// and the collections its references point into. No collection belongs to
// two tracks, so a path names at most one track (docs/contract.md, section 3).
type Track struct {
	Name        string
	Rules       string
	Collections []string
}

// Tracks lists every track, in the order tools report them: the season's
// two, then any a program registers.
var Tracks []*Track

// Collections are the collections of every track: a well-formed <id> in one
// of them names either a file or an absent reference, whichever track serves
// it; any other path is outside the corpus.
var Collections []string

// The season's tracks.
var (
	// Conformity is the conformity track (docs/contract.md, section 3).
	Conformity = Register(&Track{
		Name:  "conformite",
		Rules: Referentiel,
		Collections: []string{
			"entites",
			"agrements",
			"attestations",
			"avenants",
			"listes/agrees",
			"beneficiaires",
			"mesures-restrictives",
		},
	})
	// Purchasing is the purchasing track (docs/contract.md, section 3).
	Purchasing = Register(&Track{
		Name:  "generique",
		Rules: ReglesAchat,
		Collections: []string{
			"catalogues",
			"produits",
			"fournisseurs",
			"tarifs",
			"disponibilites",
			"livraisons",
		},
	})
)

// Register adds a track: its name, rules resource and collections join the
// path grammar. It panics on a name, rules resource or collection another
// track has, so that a path names at most one track. A program registers
// every track before it reads or serves any path: the grammar is read
// without a lock.
func Register(t *Track) *Track {
	for _, other := range Tracks {
		if other.Name == t.Name || other.Rules == t.Rules {
			panic(fmt.Sprintf("corpus: the track %q has the name or rules resource of %q", t.Name, other.Name))
		}
	}
	for _, c := range t.Collections {
		if slices.Contains(Collections, c) {
			panic(fmt.Sprintf("corpus: collection %q belongs to two tracks", c))
		}
	}
	Tracks = append(Tracks, t)
	Collections = append(Collections, t.Collections...)
	return t
}

// TrackNamed returns the track whose name (a manifest's "piste") is name.
func TrackNamed(name string) (*Track, error) {
	for _, t := range Tracks {
		if t.Name == name {
			return t, nil
		}
	}
	names := make([]string, len(Tracks))
	for i, t := range Tracks {
		names[i] = t.Name
	}
	return nil, fmt.Errorf("unknown track %q (want one of %s)", name, strings.Join(names, ", "))
}

// TrackOf returns the track a canonical path belongs to: its rules resource,
// or a reference into one of its collections. The fixed bodies belong to
// every track, and so to none in particular.
func TrackOf(path string) (*Track, bool) {
	if ref, ok := ParseReference(path); ok {
		return ref.Track(), true
	}
	for _, t := range Tracks {
		if path == t.Rules {
			return t, true
		}
	}
	return nil, false
}

// Owns reports whether path is a resource name of this track: its rules
// resource, a fixed body, or a reference into one of its collections.
func (t *Track) Owns(path string) bool {
	if IsSystem(path) {
		return true
	}
	owner, ok := TrackOf(path)
	return ok && owner == t
}

// PathOf returns the canonical path of a file of this track's tree, or an
// error naming the rule the file name breaks; a file that names another
// track's resource is one.
func (t *Track) PathOf(file string) (string, error) {
	path, err := PathOf(file)
	if err != nil {
		return "", err
	}
	if !t.Owns(path) {
		owner, _ := TrackOf(path)
		return "", fmt.Errorf("%s: %s belongs to the track %s, not %s", file, path, owner.Name, t.Name)
	}
	return path, nil
}

//go:embed all:conformite all:generique
var embedded embed.FS

// Embedded returns the track's tree compiled into the binary, rooted at the
// track's folder: for the conformity track, the file
// "agrements/AGR-4417.json" is the resource "/agrements/AGR-4417".
func (t *Track) Embedded() fs.FS {
	sub, err := fs.Sub(embedded, t.Name)
	if err != nil {
		panic(err) // the folder is compiled in: this cannot fail
	}
	return sub
}
