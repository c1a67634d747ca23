// Package pyjson reads JSON exactly as Python 3's json module reads it, refusing
// whatever Python would read differently from the bytes, and writes the
// canonical form that Trust Layer hashes:
//
//	json.dumps(v, sort_keys=True, separators=(",", ":"))  # ensure_ascii=True
//
// The canonical form is always derived from parsed bytes, never from a Go
// value re-serialised, so that what is hashed is what was served.
package pyjson

// A Value is one parsed JSON value: nil (null), bool, string, Number, Array or
// Object.
type Value any

// Number is a JSON number kept as its source literal; Canonical renders it the
// way Python prints the int or float json.loads makes of it.
type Number string

// Array is a JSON array.
type Array []Value

// Object is a JSON object with its members in source order. Keys are unique:
// Parse refuses duplicates, which Python would silently collapse.
type Object []Member

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value Value
}

// Get returns the value of key, if present. It scans the members: a
// reader of every member ranges over the object instead, so that reading
// an object stays linear in its size.
func (o Object) Get(key string) (Value, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}
