package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Build makes the manifest of the tree of the track named piste. Every file
// becomes a document or
// systeme entry; every reference cited by a file, or in citations (a task
// statement's entity and references), that has no file becomes an absent
// entry with the exact body the server answers. The result depends only on the
// tree's content, never on the order the file system lists it in.
func Build(tree fs.FS, piste, origin string, citations []string) (*Manifest, error) {
	track, err := corpus.TrackNamed(piste)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	m := &Manifest{Format: Format, Piste: piste, Origin: origin, Request: Request}
	contents, err := ReadTree(tree, track)
	if err != nil {
		return nil, err
	}
	paths := sortedKeys(contents)
	type built struct {
		entry Entry
		refs  map[string]bool
		err   error
	}
	results := make([]built, len(paths))
	parallel(len(paths), func(i int) {
		file := contents[paths[i]]
		body, err := CheckBody(file.Bytes)
		if err != nil {
			results[i].err = fmt.Errorf("%s: %w", file.Name, err)
			return
		}
		results[i].refs = map[string]bool{}
		collectReferences(body, results[i].refs)
		results[i].entry = m.entry(paths[i], file.Name, file.Bytes, body)
	})
	var errs []error
	cited := map[string]bool{}
	for _, r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		maps.Copy(cited, r.refs)
		m.Resources = append(m.Resources, r.entry)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, c := range citations {
		if corpus.IsReference(c) {
			cited[c] = true
		}
	}
	for _, path := range sortedKeys(cited) {
		if !track.Owns(path) {
			errs = append(errs, fmt.Errorf("%s: cited, but a resource of another track than %s: no path belongs to two manifests", path, track.Name))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for path := range cited {
		if _, isFile := contents[path]; !isFile {
			m.Resources = append(m.Resources, m.absentEntry(path))
		}
	}
	slices.SortFunc(m.Resources, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return m, nil
}

// absentEntry is the entry of a reference with no file.
func (m *Manifest) absentEntry(path string) Entry {
	body := corpus.AbsentBody(path)
	parsed, err := CheckBody(body)
	if err != nil {
		panic(fmt.Sprintf("manifest: the absent body of %s is not a corpus body: %v", path, err))
	}
	return m.entry(path, "", body, parsed)
}

// entry computes the manifest entry of a path served with body, already
// parsed. file is the file of the tree it comes from, empty for an absent
// reference.
func (m *Manifest) entry(path, file string, body []byte, parsed pyjson.Value) Entry {
	e := Entry{Path: path, BytesSHA256: SHA256(body), ResponseHash: responseHashOf(parsed)}
	switch {
	case file == "":
		e.Kind, e.Status = Absent, 200
	case corpus.IsSystem(path):
		e.Kind, e.Status = System, corpus.SystemStatus[path]
	default:
		e.Kind, e.Status = Document, 200
	}
	if file != "" {
		e.File = &file
	}
	if e.Kind != System {
		target := m.Target(path)
		requestHash := RequestHash(target)
		e.Target, e.RequestHash = &target, &requestHash
	}
	return e
}

// collectReferences adds every string of v that is a reference into a
// collection.
func collectReferences(v pyjson.Value, into map[string]bool) {
	switch v := v.(type) {
	case string:
		if corpus.IsReference(v) {
			into[v] = true
		}
	case pyjson.Array:
		for _, e := range v {
			collectReferences(e, into)
		}
	case pyjson.Object:
		for _, m := range v {
			collectReferences(m.Value, into)
		}
	}
}
