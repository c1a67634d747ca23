package season

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

func TestMembersCheck(t *testing.T) {
	rule := Members{Allowed: []string{"a", "b/c", "d"}, Required: []string{"a", "d"}}
	tests := []struct {
		name, data, at, err string
	}{
		{"exactly the members", `{"d": 1, "a": 2}`, "/x", ""},
		{"an allowed member given", `{"a": 1, "b/c": 2, "d": 3}`, "/x", ""},
		{"an unknown member, at its own pointer", `{"a": 1, "e": 2, "d": 3}`, "/x", `/x/e: unknown member (want a, b/c, d)`},
		{"a member in another case", `{"A": 1, "d": 3}`, "/x", `/x/A: unknown member (want a, b/c, d)`},
		{"the first unknown member in the document's order", `{"z": 1, "e": 2}`, "/x", `/x/z: unknown member (want a, b/c, d)`},
		{"unknown before missing", `{"e": 1}`, "/x", `/x/e: unknown member (want a, b/c, d)`},
		{"an unknown member of the root", `{"a/b": 1}`, "", `/a~1b: unknown member (want a, b/c, d)`},
		{"a missing member, at the object's pointer", `{"a": 1}`, "/x", `/x: member "d" is missing`},
		{"the first missing member in the rule's order", `{}`, "/x", `/x: member "a" is missing`},
		{"a missing member of the root", `{"d": 1}`, "", `(root): member "a" is missing`},
		{"not an object", `[]`, "/x", `/x: want an object, not an array`},
		{"null", `null`, "", `(root): want an object, not null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := pyjson.Parse([]byte(tt.data))
			if !assert.NoError(t, err) {
				return
			}
			err = rule.Check(v, tt.at)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.err)
			// A refused member is a *MemberError a reader in another
			// language writes from its fields; an object's shape is not.
			var m *MemberError
			if strings.Contains(tt.err, "member") {
				require.ErrorAs(t, err, &m)
				assert.Equal(t, rule.Allowed, m.Allowed)
				assert.Equal(t, strings.Contains(tt.err, "missing"), m.Missing)
				assert.NotEmpty(t, m.Member)
			} else {
				assert.False(t, errors.As(err, &m))
			}
		})
	}
	v, _ := pyjson.Parse([]byte(`{"a": 1}`))
	assert.EqualError(t, Exactly("a", "b").Check(v, "/y"), `/y: member "b" is missing`, "Exactly requires every member")
	assert.NoError(t, Members{Allowed: []string{"a", "b"}}.Check(v, "/y"), "no member required")
}

// Every reader of the season's files refuses an unknown and a missing
// member with the same two messages: the file, the JSON pointer, the rule.
func TestMemberRefusals(t *testing.T) {
	const (
		fact    = `"resource": "/entites/E", "field": "/statut", "value": "active"`
		keyTask = `"id": "conf-01", "verdict": "conforme", "familles": [], "controle": true`
	)
	type shaped struct {
		Name string `json:"name"`
		Note *struct {
			Value string `json:"value"`
		} `json:"note"`
		Items []string `json:"items"`
	}
	decodeStrict := func(data string) error { return DecodeStrict("f.json", []byte(data), &shaped{}) }
	decodeKey := func(data string) error { _, err := DecodeKey("cle.json", []byte(data)); return err }
	key := func(task string) string { return `{"taches": [{` + task + `}]}` }
	tests := []struct {
		name   string
		decode func(string) error
		data   string
		err    string
	}{
		// DecodeStrict: the members a struct declares, none required.
		{"a struct: an unknown member", decodeStrict, `{"name": "a", "other": 1}`,
			`f.json /other: unknown member (want items, name, note)`},
		{"a struct: a nested member in another case", decodeStrict, `{"note": {"Value": "x"}}`,
			`f.json /note/Value: unknown member (want value)`},
		{"a struct: every member may be left out", decodeStrict, `{"note": {}}`, ""},

		// DecodeKey: a key's root and each task.
		{"a key: an unknown member of the root", decodeKey, `{"taches": [], "saison": "1"}`,
			`cle.json /saison: unknown member (want taches)`},
		{"a key: no tasks", decodeKey, `{}`, `cle.json (root): member "taches" is missing`},
		{"a key: an unknown task member", decodeKey, key(keyTask + `, "fondement": {` + fact + `, "formes_equivalentes": []}, "faits": []`),
			`cle.json /taches/0/faits: unknown member (want id, verdict, familles, controle, fondement)`},
		{"a key: a task without its formula", decodeKey, key(keyTask),
			`cle.json /taches/0: member "fondement" is missing`},

		// tripleOf: a fact of the founding formula and each of its forms.
		{"a fact: an unknown member", decodeKey, key(keyTask + `, "fondement": {"tous": [{` + fact + `, "formes_equivalentes": [], "extra": 1}]}`),
			`cle.json /taches/0/fondement/tous/0/extra: unknown member (want resource, field, value, formes_equivalentes)`},
		{"a fact: no forms", decodeKey, key(keyTask + `, "fondement": {` + fact + `}`),
			`cle.json /taches/0/fondement: member "formes_equivalentes" is missing`},
		{"a form: forms of its own", decodeKey, key(keyTask + `, "fondement": {` + fact + `, "formes_equivalentes": [{` + fact + `, "formes_equivalentes": []}]}`),
			`cle.json /taches/0/fondement/formes_equivalentes/0/formes_equivalentes: unknown member (want resource, field, value)`},
		{"a form: no value", decodeKey, key(keyTask + `, "fondement": {` + fact + `, "formes_equivalentes": [{"resource": "/entites/E", "field": "/statut"}]}`),
			`cle.json /taches/0/fondement/formes_equivalentes/0: member "value" is missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode(tt.data)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.err)
		})
	}
}
