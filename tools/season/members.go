package season

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Members is the rule "this JSON object has exactly these members", the one
// every reader of the season's files and of a verifier's proofs applies: the
// names the object may have, each spelt exactly (encoding/json alone matches
// names regardless of case), and among them those it must have.
type Members struct {
	// Allowed are the names the object may have, in the order a refusal
	// lists them.
	Allowed []string
	// Required are the names it must have, each one of Allowed; none when
	// every member may be left out.
	Required []string
}

// Exactly is the rule of an object that has every one of names and no other.
func Exactly(names ...string) Members { return Members{Allowed: names, Required: names} }

// FieldsOf is exactly the members encoding/json reads into a T, a struct,
// in the order T declares them.
func FieldsOf[T any]() Members { return membersOf(reflect.TypeFor[T]()) }

// membersOf is exactly the members encoding/json reads into a value of
// the struct type t.
func membersOf(t reflect.Type) Members {
	var names []string
	eachJSONField(t, func(name string, _ reflect.Type) { names = append(names, name) })
	return Exactly(names...)
}

// Check refuses v, found at the JSON pointer at, unless it is an object the
// rule allows. It names the first member the rule does not allow, in the
// document's order, at that member's pointer; else the first required member
// missing, in the rule's order, at the object's pointer: either as a
// *MemberError.
func (m Members) Check(v pyjson.Value, at string) error {
	obj, ok := v.(pyjson.Object)
	if !ok {
		return fmt.Errorf("%s: want an object, not %s", pyjson.ShowPointer(at), describe(v))
	}
	for _, member := range obj {
		if !slices.Contains(m.Allowed, member.Key) {
			return &MemberError{Pointer: at + pyjson.FormatPointer([]string{member.Key}), Member: member.Key, Allowed: m.Allowed}
		}
	}
	for _, name := range m.Required {
		if _, ok := obj.Get(name); !ok {
			return &MemberError{Pointer: at, Member: name, Missing: true, Allowed: m.Allowed}
		}
	}
	return nil
}

// MemberError is a member Members refuses: one it does not allow, or one
// it requires that the object lacks. A reader that answers in another
// language (a submission's rejection, in French) writes it from these
// fields.
type MemberError struct {
	// Pointer is the member's, when it is not allowed; the object's, when
	// it is missing.
	Pointer string
	Member  string
	Missing bool
	// Allowed are the names the rule allows, in its order.
	Allowed []string
}

func (e *MemberError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%s: member %q is missing", pyjson.ShowPointer(e.Pointer), e.Member)
	}
	return fmt.Sprintf("%s: unknown member (want %s)", e.Pointer, strings.Join(e.Allowed, ", "))
}
