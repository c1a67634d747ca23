package solver

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// ServeTree answers like the corpus server past its gate: a file's exact
// bytes, or corpus.AbsentBody for a reference into a collection that has no
// file. Anything else is an error: the solver never asks for it, and an agent
// that did would get the 404 body, which no criterion reads.
func ServeTree(tree fs.FS) season.Fetcher {
	return func(path string) ([]byte, error) {
		if !corpus.IsRules(path) && !corpus.IsReference(path) {
			return nil, fmt.Errorf("%s: not a resource of the corpus", path)
		}
		data, err := fs.ReadFile(tree, corpus.FileOf(path))
		if errors.Is(err, fs.ErrNotExist) && corpus.IsReference(path) {
			return corpus.AbsentBody(path), nil
		}
		return data, err
	}
}

// ReadFields returns string members of obj by name. A member named date_*
// must be a real YYYY-MM-DD date: the criteria compare dates as strings,
// which orders them correctly only in that form.
func ReadFields(obj pyjson.Object, name string, fields ...string) (map[string]string, error) {
	return readFields(obj, name, corpus.IsDateMember, fields)
}

// ReadDates returns string members of obj by name as ReadFields does, each
// a real YYYY-MM-DD date whatever its name: for the dates a track holds
// under another name than date_*.
func ReadDates(obj pyjson.Object, name string, fields ...string) (map[string]string, error) {
	return readFields(obj, name, func(string) bool { return true }, fields)
}

func readFields(obj pyjson.Object, name string, isDate func(member string) bool, fields []string) (map[string]string, error) {
	out := make(map[string]string, len(fields))
	for _, f := range fields {
		s, err := season.StringAt(obj, name, "/"+f)
		if err != nil {
			return nil, err
		}
		if isDate(f) && !corpus.IsDate(s) {
			return nil, fmt.Errorf("%s: %s %q is not a YYYY-MM-DD date", name, f, s)
		}
		out[f] = s
	}
	return out, nil
}
