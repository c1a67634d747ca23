// Package corpus holds the frozen corpus of the conformity track and the rules
// that name its resources: how a file maps to a canonical path, which request
// targets are well formed, which paths are references into a collection, and
// the body served for a reference that has no file.
//
// Everything downstream (the manifest, the linter, the server) asks this
// package, so that the path grammar exists once.
package corpus

import (
	"embed"
	"io/fs"
)

// Track is the name of the served tree, the conformity track.
const Track = "conformite"

//go:embed all:conformite
var embedded embed.FS

// Embedded returns the corpus tree compiled into the binary, rooted at the
// track folder: the file "agrements/AGR-4417.json" is the resource
// "/agrements/AGR-4417".
func Embedded() fs.FS {
	sub, err := fs.Sub(embedded, Track)
	if err != nil {
		panic(err) // the folder is compiled in: this cannot fail
	}
	return sub
}
