package catalogue

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// Leak is what a file meant for publication at the opening tells that only
// the close may.
type Leak struct {
	File string
	What string
}

func (l Leak) String() string { return l.File + ": " + l.What }

// Opening checks the files published at a season's opening (the task
// statements and the catalogue) against the publication policy (docs/contract.md,
// section 9): no file names an absent reference that no statement names, by its path
// or by any of its hashes, and no file holds the manifest, nor the hash of
// any body it lists beside the contract's fixed bodies, which anyone can
// obtain. named are the references the statements name.
func Opening(files map[string][]byte, m *manifest.Manifest, named []string) []Leak {
	type secret struct{ needle, what string }
	secrets := []secret{{manifest.Format, "holds the manifest (its format identifier): the manifest is published at the close"}}
	for _, e := range m.Resources {
		if e.Kind == manifest.System {
			continue
		}
		if e.Kind == manifest.Absent && !slices.Contains(named, e.Path) {
			what := fmt.Sprintf("names the absent reference %s, which no statement names", e.Path)
			secrets = append(secrets,
				secret{e.Path, what},
				secret{strings.ReplaceAll(e.Path, "/", `\/`), what},
				secret{*e.RequestHash, what + " (its request_hash)"})
		}
		what := fmt.Sprintf("holds a hash of the body of %s that the manifest lists: the manifest is published at the close", e.Path)
		secrets = append(secrets, secret{e.ResponseHash, what}, secret{e.BytesSHA256, what})
	}
	var leaks []Leak
	for _, name := range sortedNames(files) {
		data := files[name]
		lower := bytes.ToLower(data) // a hash may be written in capitals
		for _, s := range secrets {
			found := bytes.Contains(data, []byte(s.needle))
			if !found && anchor.IsSHA256(s.needle) {
				found = bytes.Contains(lower, []byte(s.needle))
			}
			if found {
				leaks = append(leaks, Leak{File: name, What: s.what})
			}
		}
	}
	return leaks
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
