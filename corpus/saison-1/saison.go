// Package saison holds the public files of season 1 as the binary embeds
// them: each track's task statements and pre-registration record, which
// are published at the opening. A tool that re-derives a season from a
// folder falls back on these when the folder holds none, so that its
// defaults never depend on the directory it runs from. The answer keys,
// sealed until the close, are not embedded.
package saison

import (
	"embed"
	"io/fs"
)

//go:embed taches.json taches-generique.json preenregistrement.json preenregistrement-generique.json
var public embed.FS

// File is the embedded public file of that name (taches.json,
// preenregistrement-generique.json...); false when the season has none.
func File(name string) ([]byte, bool) {
	data, err := fs.ReadFile(public, name)
	return data, err == nil
}
