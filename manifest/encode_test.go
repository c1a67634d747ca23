package manifest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
)

// reflected is what encoding/json writes for a manifest, entries sorted by
// path, with the indentation Encode promises: the reference Encode's direct
// writer must match.
func reflected(t *testing.T, m *manifest.Manifest) []byte {
	t.Helper()
	sorted := *m
	sorted.Resources = slices.Clone(m.Resources)
	slices.SortFunc(sorted.Resources, func(a, b manifest.Entry) int { return strings.Compare(a.Path, b.Path) })
	m = &sorted
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(m))
	return buf.Bytes()
}

func TestEncodeIsEncodingJSON(t *testing.T) {
	season, err := manifest.Decode(manifest.Embedded(corpus.Conformity))
	require.NoError(t, err)
	str := func(s string) *string { return &s }
	odd := []string{"a\"b\\c", "<&>", "\u2028\u2029", "tab\there\nnew\rline\b\f\x01", "Lefèvre 🙂", "\x7f", "bad\xffutf8", ""}
	var strange []manifest.Entry
	for i, s := range odd {
		strange = append(strange, manifest.Entry{Path: "/p" + s, Kind: manifest.Kind(s), Status: 200 + i, Target: str(s), File: str(s),
			BytesSHA256: s, RequestHash: str(s), ResponseHash: s})
	}
	// More entries than one goroutine writes, out of order.
	var many []manifest.Entry
	for i := range 5000 {
		many = append(many, manifest.Entry{Path: fmt.Sprintf("/agrements/AGR-%d", (i*7919)%5000), Kind: manifest.Document, Status: 200,
			Target: str(fmt.Sprint(i)), BytesSHA256: fmt.Sprint(i), ResponseHash: "é"})
	}
	tests := []struct {
		name string
		m    manifest.Manifest
	}{
		{"the season's manifest", *season},
		{"many entries, out of order", manifest.Manifest{Format: manifest.Format, Origin: manifest.DefaultOrigin, Request: manifest.Request, Resources: many}},
		{"strings encoding/json escapes", manifest.Manifest{Format: "f\"", Track: "é", Origin: "https://x/<y>", Request: manifest.Request, Resources: strange}},
		{"no resources", manifest.Manifest{Format: manifest.Format, Resources: []manifest.Entry{}}},
		{"nil resources", manifest.Manifest{Format: manifest.Format}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := reflected(t, &tt.m)
			assert.Equal(t, string(want), string(tt.m.Encode()))
			var written bytes.Buffer
			n, err := tt.m.WriteTo(&written)
			require.NoError(t, err)
			assert.Equal(t, int64(len(want)), n)
			assert.Equal(t, string(want), written.String(), "WriteTo writes what Encode returns")
		})
	}
	assert.Equal(t, manifest.Embedded(corpus.Conformity), season.Encode(), "the checked-in manifest encodes to its own bytes")
}

// TestDecodeIsEncodingJSON decodes documents the direct reader takes and
// documents it leaves to encoding/json: every one must read as
// encoding/json reads it, or fail where it fails.
func TestDecodeIsEncodingJSON(t *testing.T) {
	season := manifest.Embedded(corpus.Conformity)
	edit := func(old, new string) string { return strings.Replace(string(season), old, new, 1) }
	firstPath := `"path": "/_systeme/400"`
	docs := map[string]string{
		"as written":                string(season),
		"compact":                   compact(t, season),
		"an escape in a string":     edit(`"piste": "conformite"`, `"piste": "conform\u0069te"`),
		"an unknown field":          edit(firstPath, firstPath+`, "later": [1, {"x": null}]`),
		"a field in capitals":       edit(`"piste"`, `"PISTE"`),
		"a duplicate field":         edit(firstPath, firstPath+`, "path": "/_systeme/400"`),
		"status as a float":         edit(`"status": 400`, `"status": 400.0`),
		"status with a leading 0":   edit(`"status": 400`, `"status": 0400`),
		"amount with an exponent":   edit(`"amount": 0.0`, `"amount": 0e0`),
		"a non-empty payload":       edit(`"payload": {}`, `"payload": {"a": 1}`),
		"null resources":            `{"format": "proveit-corpus-manifest/1", "resources": null}`,
		"a string that never ends":  string(season[:len(season)/2]),
		"data after the object":     string(season) + "{}",
		"a missing comma":           edit(`"kind": "systeme",`, `"kind": "systeme"`),
		"invalid UTF-8 in a string": edit(`"piste": "conformite"`, "\"piste\": \"conf\xffrmite\""),
		"a control character":       edit(`"piste": "conformite"`, "\"piste\": \"conf\trmite\""),
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			var want manifest.Manifest
			wantErr := json.Unmarshal([]byte(doc), &want)
			got, err := manifest.Decode([]byte(doc))
			if wantErr != nil {
				assert.Error(t, err)
				return
			}
			if err != nil {
				// Decode's own checks (format, order, fixed bodies) may
				// refuse what encoding/json reads.
				assert.NotContains(t, err.Error(), "invalid character")
				return
			}
			assert.Equal(t, want, *got)
		})
	}
}

func compact(t *testing.T, data []byte) string {
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, data))
	return buf.String()
}
