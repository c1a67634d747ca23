package seal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// SpecSection frames a section as the specification's page does: its
// heading line to the next second-level heading, trimmed, one newline.
func TestSpecSection(t *testing.T) {
	spec := "# Titre\n\n## 1. Un\n\ntexte un\n\n---\n\n## 2. Deux\n### 2.1 sous-section\ntexte deux  \n\n"
	for _, tt := range []struct {
		name, heading, want, err string
	}{
		{"a section before another", "## 1. ", "## 1. Un\n\ntexte un\n\n---\n", ""},
		{"the last section, to the end", "## 2. ", "## 2. Deux\n### 2.1 sous-section\ntexte deux\n", ""},
		{"no such heading", "## 3. ", "", `no line starts with "## 3. "`},
		{"not a second-level heading", "### 2.1", "", "want a second-level heading"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SpecSection([]byte(spec), tt.heading)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// Each track's frozen scoring section in corpus/saison-1 is exactly its
// span of the published specification; the conformity track's hashes to
// the SHA-256 the specification's page publishes, and each track's record
// seals its section as it is.
func TestPublishedScoringSections(t *testing.T) {
	spec, err := os.ReadFile(filepath.Join("testdata", "spec", "prove-it-specification.fr.md"))
	require.NoError(t, err)
	var page struct {
		Content struct {
			Section5 struct {
				SHA256  string `json:"sha256"`
				ProofID string `json:"proof_id"`
			} `json:"section_5"`
		} `json:"contenu"`
	}
	data, err := os.ReadFile(filepath.Join("testdata", "spec", "specification-page.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &page))
	require.True(t, anchor.IsSHA256(page.Content.Section5.SHA256))

	season := filepath.Join("..", "..", "corpus", "saison-1")
	for _, tt := range []struct {
		heading, section, record, published string
	}{
		{"## 5. PISTE CONFORMITÉ", "bareme.md", "preenregistrement.json", page.Content.Section5.SHA256},
		{"## 6. PISTE GÉNÉRIQUE", "bareme-generique.md", "preenregistrement-generique.json", ""},
	} {
		t.Run(tt.section, func(t *testing.T) {
			want, err := SpecSection(spec, tt.heading)
			require.NoError(t, err)
			kept, err := os.ReadFile(filepath.Join(season, tt.section))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(kept), "the span of the published text, byte for byte")
			if tt.published != "" {
				assert.Equal(t, tt.published, anchor.SHA256(kept), "the hash the specification's page publishes")
			}
			rec, err := ReadRecord(filepath.Join(season, tt.record))
			require.NoError(t, err)
			assert.Equal(t, anchor.SHA256(kept), rec.ScoringSectionSHA256, "%s seals the section as published", tt.record)
		})
	}
}
