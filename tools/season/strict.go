package season

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Strict decoding: a season's files are read as strictly as a submission
// is, every member named exactly and of the type its Go field declares.

// decodeValue decodes the members of obj, found at the pointer tokens at,
// that into's struct type declares, as DecodeStrict decodes a document.
func decodeValue(obj pyjson.Value, at []string, into any) error {
	t := reflect.TypeOf(into).Elem()
	fields := jsonFields(t)
	var mine pyjson.Object
	for _, m := range obj.(pyjson.Object) {
		if _, ok := fields[m.Key]; ok {
			mine = append(mine, m)
		}
	}
	if err := checkShape(mine, t, at); err != nil {
		return err
	}
	if err := json.Unmarshal(pyjson.Canonical(mine), into); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			pointer := pyjson.FormatPointer(append(slices.Clone(at), strings.Split(typeErr.Field, ".")...))
			return fmt.Errorf("%s: want %s, not a JSON %s", pointer, typeErr.Type, typeErr.Value)
		}
		return err
	}
	return nil
}

// DecodeStrict decodes one JSON document into a struct as strictly as a
// submission is read: the document is read as Python reads it (no duplicate
// key, no trailing data), and every member's name must be, character for
// character, one the struct declares. The error names the file, the JSON
// pointer and the rule.
func DecodeStrict(name string, data []byte, into any) error {
	doc, err := pyjson.Parse(data)
	if err != nil {
		var syntax *pyjson.SyntaxError
		if errors.As(err, &syntax) {
			return fmt.Errorf("%s %s: not JSON as Python reads it: %s (byte %d)", name, pyjson.ShowPointer(syntax.Pointer), syntax.Reason, syntax.Offset)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := checkShape(doc, reflect.TypeOf(into), nil); err != nil {
		return fmt.Errorf("%s %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			pointer := pyjson.FormatPointer(strings.Split(typeErr.Field, "."))
			return fmt.Errorf("%s %s: want %s, not a JSON %s", name, pointer, typeErr.Type, typeErr.Value)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether encoding/json hands t's values to t's own
// decoder.
func decodesItself(t reflect.Type) bool {
	for _, i := range []reflect.Type{unmarshalerType, textUnmarshalerType} {
		if t.Implements(i) || reflect.PointerTo(t).Implements(i) {
			return true
		}
	}
	return false
}

// checkShape refuses the first value of v, at the pointer tokens at, that
// the Go type t does not take as written: a member whose name t does not
// declare exactly (encoding/json matches names without regard to case), or
// a value of another JSON type (encoding/json takes null for anything). A
// type that decodes itself is left to its own decoder.
func checkShape(v pyjson.Value, t reflect.Type, at []string) error {
	if t.Kind() == reflect.Pointer && v == nil {
		return nil // null leaves a pointer nil: the member's absence
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) {
		return nil
	}
	where := func() string { return pyjson.ShowPointer(pyjson.FormatPointer(at)) }
	var ok bool
	switch t.Kind() {
	case reflect.Struct:
		var obj pyjson.Object
		if obj, ok = v.(pyjson.Object); !ok {
			break
		}
		fields := jsonFields(t)
		// Any member may be left out, as encoding/json allows.
		declared := Members{Allowed: slices.Sorted(maps.Keys(fields))}
		if err := declared.Check(obj, pyjson.FormatPointer(at)); err != nil {
			return err
		}
		for _, m := range obj {
			if err := checkShape(m.Value, fields[m.Key], append(at, m.Key)); err != nil {
				return err
			}
		}
	case reflect.Map:
		var obj pyjson.Object
		if obj, ok = v.(pyjson.Object); !ok {
			break
		}
		for _, m := range obj {
			if err := checkShape(m.Value, t.Elem(), append(at, m.Key)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		var list pyjson.Array
		if list, ok = v.(pyjson.Array); !ok {
			break
		}
		for i, item := range list {
			if err := checkShape(item, t.Elem(), append(at, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	case reflect.String:
		_, ok = v.(string)
	case reflect.Bool:
		_, ok = v.(bool)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		_, ok = v.(pyjson.Number)
	default:
		ok = true // an interface takes any value
	}
	if !ok {
		return fmt.Errorf("%s: want %s, not %s", where(), jsonKind(t), describe(v))
	}
	return nil
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return "a number"
}

// describe names the JSON type of a parsed value.
func describe(v pyjson.Value) string {
	switch v.(type) {
	case nil:
		return "null"
	case pyjson.Object:
		return "an object"
	case pyjson.Array:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// jsonFields maps the member names a struct declares, as encoding/json
// names them (the tag's name, else the field's), to their types; the
// fields of an embedded struct without a tag are the struct's own.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	eachJSONField(t, func(name string, typ reflect.Type) { fields[name] = typ })
	return fields
}

// eachJSONField calls fn with each member encoding/json reads into a value
// of the struct type t, in the order t declares them, and its type.
func eachJSONField(t reflect.Type, fn func(name string, typ reflect.Type)) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" && tag == "-":
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			eachJSONField(f.Type, fn)
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		fn(name, f.Type)
	}
}
