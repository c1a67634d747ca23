// Package gencorpus generates synthetic corpus trees of any size with the
// schema of the conformity track (docs/contract.md, section 3), for
// benchmarks: entities, agréments, attestations, avenants, the paged public
// lists, pages of beneficial owners and of the restrictive-measures list,
// each written member by member as the track's schemas (conformity.Schemas,
// the linter's) order them, in French, with
// strings, booleans and null only, each file laid out as the real ones are
// (json.dumps(obj, ensure_ascii=False, indent=2) + "\n"). The referentiel and
// the fixed bodies /_systeme/* are the real ones, copied from the embedded
// corpus. A few entities cite an attestation that has no file, so the
// manifest has absent entries too. Generated trees pass every rule of the
// linter, the realism rules included: a SIREN that fails the Luhn check (no
// number INSEE may have issued), a number of partners the legal form allows,
// an invented address, beneficial owners above the 25 % threshold or
// declared for control.
//
// The same size and seed always give the same bytes, and so the same
// manifest. The package knows nothing of manifests: its callers build one
// (manifest.Build), so that the manifest's own tests may generate trees.
package gencorpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing/fstest"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/tracks/conformity"
)

// Track is the track whose schema the generated trees have: the one track
// this package names.
var Track = corpus.Conformity

// minResources is the smallest tree generated: the referentiel, the four
// fixed bodies, the first page of every list and a few entities.
const minResources = 20

// Page sizes of the paged collections.
const (
	listPageSize     = 25
	measuresPageSize = 8
)

// Options say what to generate.
type Options struct {
	// Resources is the exact number of files in the tree.
	Resources int
	// Seed picks one corpus among those of that size.
	Seed uint64
}

// Tree generates the files of a corpus, keyed by name relative to the
// tree's root ("agrements/AGR-000001.json").
func Tree(o Options) (fstest.MapFS, error) {
	if o.Resources < minResources {
		return nil, fmt.Errorf("gencorpus: %d resources asked, at least %d needed", o.Resources, minResources)
	}
	g, err := newGenerator(o)
	if err != nil {
		return nil, err
	}
	g.generate()
	if len(g.files) != o.Resources {
		panic(fmt.Sprintf("gencorpus: generated %d files for %d resources", len(g.files), o.Resources))
	}
	return g.files, nil
}

// activity is one activity code of the referentiel, with what it requires
// and its public list.
type activity struct {
	code      string
	required  []string // attestation types
	firstPage string   // path of the first page of its public list
	entries   []listEntry
}

type generator struct {
	rng        *rand.Rand
	files      fstest.MapFS
	activities []*activity
	measures   string // path of the first page of the restrictive-measures list
	budget     int    // files left for entities and their documents
	extraPages int    // restrictive-measures pages beyond the first
	next       map[string]int
	fitted     map[reflect.Type]bool // document types held to their schema
}

func newGenerator(o Options) (*generator, error) {
	g := &generator{
		rng:    rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)),
		files:  fstest.MapFS{},
		next:   map[string]int{},
		fitted: map[reflect.Type]bool{},
	}
	if err := g.copyFixed(); err != nil {
		return nil, err
	}
	// What every tree holds whatever its size: the files copied, the first
	// page of every list; a share of the rest goes to restrictive measures.
	fixed := len(g.files) + len(g.activities) + 1
	g.extraPages = (o.Resources - fixed) / 500
	g.budget = o.Resources - fixed - g.extraPages
	return g, nil
}

// copyFixed copies the real referentiel and fixed bodies, and reads the
// activities, their required attestations and their lists from the former.
func (g *generator) copyFixed() error {
	tree := Track.Embedded()
	names := []string{corpus.FileOf(corpus.Referentiel)}
	for path := range corpus.SystemStatus {
		names = append(names, corpus.FileOf(path))
	}
	for _, name := range names {
		data, err := fs.ReadFile(tree, name)
		if err != nil {
			return err
		}
		g.files[name] = &fstest.MapFile{Data: data}
	}
	ref, err := anchor.CheckBody(g.files[corpus.FileOf(corpus.Referentiel)].Data)
	if err != nil {
		return fmt.Errorf("gencorpus: referentiel: %w", err)
	}
	required, _ := ref.Get("attestations_requises")
	lists, _ := ref.Get("listes_agrees")
	measures, _ := ref.Get("mesures_restrictives")
	requiredTable, _ := required.(pyjson.Object)
	listTable, _ := lists.(pyjson.Object)
	g.measures, _ = measures.(string)
	for _, m := range requiredTable {
		a := &activity{code: m.Key}
		types, _ := m.Value.(pyjson.Array)
		for _, t := range types {
			s, _ := t.(string)
			a.required = append(a.required, s)
		}
		first, _ := listTable.Get(m.Key)
		a.firstPage, _ = first.(string)
		if len(a.required) == 0 || a.firstPage == "" {
			return fmt.Errorf("gencorpus: referentiel: activity %q lacks attestations or a list", m.Key)
		}
		g.activities = append(g.activities, a)
	}
	if len(g.activities) == 0 || g.measures == "" {
		return fmt.Errorf("gencorpus: referentiel names no activity or no restrictive-measures list")
	}
	return nil
}

// generate adds entities while their documents fit the budget, then the
// pages of the lists; what is left of the budget goes to restrictive
// measures, so the tree has exactly the size asked.
func (g *generator) generate() {
	for {
		e := g.drawEntity()
		if e.cost > g.budget {
			break
		}
		g.budget -= e.cost
		g.commit(e)
	}
	for _, a := range g.activities {
		g.writeList(a)
	}
	g.writeMeasures(1 + g.extraPages + g.budget)
}

// id allocates the next identifier of a family: AGR-000001, AGR-000002...
func (g *generator) id(prefix string) string {
	g.next[prefix]++
	return fmt.Sprintf("%s-%06d", prefix, g.next[prefix])
}

// put writes a document at its canonical path. Its type is held to its
// collection's schema the first time it is written (fitSchema); then the
// encoder writes its members in the order of its fields, which is the
// schema's.
func (g *generator) put(path string, doc any) {
	collection := corpus.CollectionOf(path)
	if t := reflect.TypeOf(doc); !g.fitted[t] {
		fitSchema(t.Elem(), conformity.Schemas[collection], collection)
		g.fitted[t] = true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		panic(err) // strings, booleans and slices of them: cannot fail
	}
	g.files[corpus.FileOf(path)] = &fstest.MapFile{Data: buf.Bytes()}
}

// fitSchema panics unless the struct type t encodes exactly the schema's
// fields, in its order, none left out when empty, and each array of
// entries's elements their own schema's: the track's schema
// (conformity.Schemas) is the one shape of its documents, and a type that
// strays from it is this package's mistake.
func fitSchema(t reflect.Type, schema lint.Schema, where string) {
	if t.NumField() != len(schema) {
		panic(fmt.Sprintf("gencorpus: %v has %d fields, the schema of %s %d", t, t.NumField(), where, len(schema)))
	}
	for i, f := range schema {
		field := t.Field(i)
		if tag := field.Tag.Get("json"); tag != f.Name {
			panic(fmt.Sprintf("gencorpus: %v field %d is %q, the schema of %s wants %q", t, i, tag, where, f.Name))
		}
		if f.Type == lint.Entries {
			fitSchema(field.Type.Elem(), f.Sub, where+" "+f.Name)
		}
	}
}

func (g *generator) pick(words []string) string { return words[g.rng.IntN(len(words))] }

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

// day draws a date in [from, from+days).
func (g *generator) day(from string, days int) time.Time {
	t, err := time.Parse(time.DateOnly, from)
	if err != nil {
		panic(err)
	}
	return t.AddDate(0, 0, g.rng.IntN(days))
}

func date(t time.Time) string { return t.Format(time.DateOnly) }

func ptr(s string) *string { return &s }

// pagePath is the path of page n (from 1) of a paged resource.
func pagePath(first string, n int) string {
	if n == 1 {
		return first
	}
	return first + "-p" + strconv.Itoa(n)
}

// siren is the n-th entity's SIREN: eight digits that differ for every n
// (7919 is prime to 70 000 000), then the digit after their Luhn key, so
// that the SIREN fails the Luhn check and no real company is named.
func siren(n int) string {
	digits := strconv.Itoa(30000000 + n*7919%70000000)
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 0 { // doubled: the key will sit to its right
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	key := (10 - sum%10) % 10
	return digits + strconv.Itoa((key+1)%10)
}
