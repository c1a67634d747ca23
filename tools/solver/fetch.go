package solver

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Fetcher answers a canonical path with the body the server would send.
type Fetcher func(path string) ([]byte, error)

// ServeTree answers like the corpus server past its gate: a file's exact
// bytes, or corpus.AbsentBody for a reference into a collection that has no
// file. Anything else is an error: the solver never asks for it, and an agent
// that did would get the 404 body, which no criterion reads.
func ServeTree(tree fs.FS) Fetcher {
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

// pointer joins tokens into a JSON pointer.
func pointer(tokens ...string) string {
	return pyjson.FormatPointer(tokens)
}

// stringAt returns the string at ptr in doc; name says which document in
// errors.
func stringAt(doc pyjson.Value, name, ptr string) (string, error) {
	v, ok := pyjson.Lookup(doc, ptr)
	s, isString := v.(string)
	if !ok || !isString {
		return "", fmt.Errorf("%s: want a string at %s", name, ptr)
	}
	return s, nil
}

// stringsAt returns the array of strings at ptr in doc.
func stringsAt(doc pyjson.Value, name, ptr string) ([]string, error) {
	v, _ := pyjson.Lookup(doc, ptr)
	list, ok := v.(pyjson.Array)
	if !ok {
		return nil, fmt.Errorf("%s: want an array of strings at %s", name, ptr)
	}
	out := make([]string, len(list))
	for i, e := range list {
		if out[i], ok = e.(string); !ok {
			return nil, fmt.Errorf("%s: want a string at %s/%d", name, ptr, i)
		}
	}
	return out, nil
}

// objectsAt returns the array of objects at ptr in doc.
func objectsAt(doc pyjson.Value, name, ptr string) ([]pyjson.Object, error) {
	v, _ := pyjson.Lookup(doc, ptr)
	list, ok := v.(pyjson.Array)
	if !ok {
		return nil, fmt.Errorf("%s: want an array of objects at %s", name, ptr)
	}
	out := make([]pyjson.Object, len(list))
	for i, e := range list {
		if out[i], ok = e.(pyjson.Object); !ok {
			return nil, fmt.Errorf("%s: want an object at %s/%d", name, ptr, i)
		}
	}
	return out, nil
}

// readFields returns string members of obj by name. A date member must be a
// real YYYY-MM-DD date: the criteria compare dates as strings, which orders
// them correctly only in that form.
func readFields(obj pyjson.Object, name string, fields ...string) (map[string]string, error) {
	out := make(map[string]string, len(fields))
	for _, f := range fields {
		s, err := stringAt(obj, name, "/"+f)
		if err != nil {
			return nil, err
		}
		if isDateField(f) && !isDate(s) {
			return nil, fmt.Errorf("%s: %s %q is not a YYYY-MM-DD date", name, f, s)
		}
		out[f] = s
	}
	return out, nil
}

func isDateField(name string) bool {
	return len(name) > 5 && name[:5] == "date_" || name == "nouvelle_date_fin"
}

func isDate(s string) bool {
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Format(time.DateOnly) == s
}
