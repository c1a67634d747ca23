package season

import (
	"fmt"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Reading served bodies: what the graph walks and the solver's criteria
// read, each value of the type the rules expect or an error naming the
// document and the pointer.

// Pointer joins tokens into a JSON pointer.
func Pointer(tokens ...string) string {
	return pyjson.FormatPointer(tokens)
}

// StringAt returns the string at ptr in doc; name says which document in
// errors.
func StringAt(doc pyjson.Value, name, ptr string) (string, error) {
	v, ok := pyjson.Lookup(doc, ptr)
	s, isString := v.(string)
	if !ok || !isString {
		return "", fmt.Errorf("%s: want a string at %s", name, ptr)
	}
	return s, nil
}

// StringsAt returns the array of strings at ptr in doc.
func StringsAt(doc pyjson.Value, name, ptr string) ([]string, error) {
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

// ObjectsAt returns the array of objects at ptr in doc.
func ObjectsAt(doc pyjson.Value, name, ptr string) ([]pyjson.Object, error) {
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
