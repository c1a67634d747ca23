package corpus

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckTarget(t *testing.T) {
	tests := []struct {
		target string
		ok     bool
	}{
		{"/agrements/AGR-4417", true},
		{"/listes/agrees/change-manuel-p2", true},
		{"/referentiel", true},
		{"/a:b@c!$&'()*+,;=~", true},
		{"", false},
		{"/", false},
		{"agrements/AGR-4417", false},
		{"*", false},
		{"http://corpus.arkforge.tech/referentiel", false},
		{"/referentiel?", false},
		{"/referentiel?a=1", false},
		{"/referentiel#x", false},
		{"/agrements%2FAGR-4417", false},
		{"/agrements/%2e%2e", false},
		{"//referentiel", false},
		{"/agrements//AGR-4417", false},
		{"/./referentiel", false},
		{"/agrements/..", false},
		{"/agrements/.", false},
		{"/agrements/AGR-4417/", false},
		{"/entités/ENT-1", false},
		{"/a b", false},
		{"/a\x00b", false},
		{"/a\\b", false},
		{"/a\"b", false},
		{"/a<b>", false},
		{"/..a", true},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			path, err := CheckTarget(tt.target)
			if tt.ok {
				assert.NoError(t, err)
				assert.Equal(t, tt.target, path)
			} else {
				assert.ErrorIs(t, err, errMalformed)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	files := map[string]bool{"/referentiel": true, "/agrements/AGR-4417": true, "/_systeme/404": true}
	isResource := func(p string) bool { return files[p] && !IsSystem(p) }
	tests := []struct {
		target string
		want   Outcome
	}{
		{"/referentiel", Resource},
		{"/agrements/AGR-4417", Resource},
		{"/agrements/AGR-9999", AbsentReference},
		{"/listes/agrees/x.y_z-1", AbsentReference},
		{"/mesures-restrictives/MR-2026-p9", AbsentReference},
		{"/agrements/" + strings.Repeat("a", 64), AbsentReference},
		{"/agrements/" + strings.Repeat("a", 65), NotFound},
		{"/agrements/-x", NotFound},
		{"/agrements/a~b", NotFound},
		{"/agrements", NotFound},
		{"/listes/agrees", NotFound},
		{"/listes/autres/x", NotFound},
		{"/_systeme/404", NotFound},
		{"/referentiel/x", NotFound},
		{"/produits/PRD-0001", AbsentReference},
		{"/livraisons/LIV-7.annexe", AbsentReference},
		{"/regles-achat", NotFound},
		{"/catalogues", NotFound},
		{"/agrements/AGR-1/x", NotFound},
		{"/agrements/AGR-1?", Malformed},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			got, _, _ := Classify(tt.target, isResource)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A reference parses once into its collection, id and track, gives its
// path back, and stands as a map key; anything else parses to the zero
// Reference, which names no collection.
func TestParseReference(t *testing.T) {
	tests := []struct {
		path, collection, id string
		track                *Track
	}{
		{"/agrements/AGR-4417", "agrements", "AGR-4417", Conformity},
		{"/listes/agrees/change-manuel-p2", "listes/agrees", "change-manuel-p2", Conformity},
		{"/produits/PCP-1308", "produits", "PCP-1308", Purchasing},
		{"/livraisons/LIV-7.annexe", "livraisons", "LIV-7.annexe", Purchasing},
		{"/referentiel", "", "", nil},
		{"/listes/agrees", "", "", nil},
		{"/listes/AGR-1", "", "", nil},
		{"/agrements/-x", "", "", nil},
		{"/agrements/A/B", "", "", nil},
		{"agrements/AGR-4417", "", "", nil},
		{"/inconnu/X", "", "", nil},
		{"", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			ref, ok := ParseReference(tt.path)
			assert.Equal(t, tt.collection != "", ok)
			assert.Equal(t, ok, ref.isValid())
			assert.Equal(t, ok, IsReference(tt.path))
			assert.Equal(t, tt.collection, ref.Collection())
			assert.Equal(t, tt.collection, CollectionOf(tt.path))
			assert.Equal(t, tt.id, ref.ID())
			assert.Equal(t, tt.track, ref.Track())
			if ok {
				assert.Equal(t, tt.path, ref.Path())
				assert.Equal(t, tt.path, ref.String())
				again, _ := ParseReference(tt.path)
				assert.Equal(t, map[Reference]bool{ref: true}, map[Reference]bool{again: true}, "the same path, the same key")
			} else {
				assert.Equal(t, Reference{}, ref)
			}
		})
	}
}

func TestPathOf(t *testing.T) {
	tests := []struct {
		file, path, err string
	}{
		{"agrements/AGR-4417.json", "/agrements/AGR-4417", ""},
		{"listes/agrees/change-manuel-p2.json", "/listes/agrees/change-manuel-p2", ""},
		{"referentiel.json", "/referentiel", ""},
		{"_systeme/503.json", "/_systeme/503", ""},
		{"_systeme/500.json", "", "fixed bodies"},
		{"agrements/AGR-4417.txt", "", "not a .json file"},
		{"regles-achat.json", "/regles-achat", ""},
		{"catalogues/ecrans-p2.json", "/catalogues/ecrans-p2", ""},
		{"agrements/.hidden.json", "", "not a rules resource"},
		{"autres/X.json", "", "not a rules resource"},
		{"agrements/a/b.json", "", "not a rules resource"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path, err := PathOf(tt.file)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.path, path)
			assert.Equal(t, tt.file, FileOf(path))
			assert.True(t, IsFileOf(tt.file, path))
		})
	}
}

func TestIsFileOf(t *testing.T) {
	tests := []struct {
		file, path string
		want       bool
	}{
		{"agrements/AGR-4417.json", "/agrements/AGR-4417", true},
		{"referentiel.json", "/referentiel", true},
		{"agrements/AGR-4417.json", "/agrements/AGR-4418", false},
		{"agrements/AGR-4417", "/agrements/AGR-4417", false},
		{"/agrements/AGR-4417.json", "/agrements/AGR-4417", false},
		{".json", "/", true},
		{"", "", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, IsFileOf(tt.file, tt.path), "%q %q", tt.file, tt.path)
		assert.Equal(t, tt.want, tt.file == FileOf(tt.path), "as FileOf: %q %q", tt.file, tt.path)
	}
}

func TestTracks(t *testing.T) {
	seen := map[string]string{}
	for _, track := range Tracks {
		assert.True(t, IsRules(track.Rules), track.Name)
		for _, c := range track.Collections {
			assert.NotContains(t, seen, c, "collection %s of %s already belongs to %s", c, track.Name, seen[c])
			seen[c] = track.Name
			assert.Contains(t, Collections, c)
		}
		named, err := TrackNamed(track.Name)
		assert.NoError(t, err)
		assert.Same(t, track, named)
	}
	assert.Len(t, Collections, len(seen))
	_, err := TrackNamed("autre")
	assert.ErrorContains(t, err, `unknown track "autre"`)
}

func TestTrackPathOf(t *testing.T) {
	tests := []struct {
		track *Track
		file  string
		path  string
		err   string
	}{
		{Conformity, "referentiel.json", "/referentiel", ""},
		{Conformity, "agrements/AGR-1.json", "/agrements/AGR-1", ""},
		{Conformity, "_systeme/403.json", "/_systeme/403", ""},
		{Conformity, "regles-achat.json", "", "belongs to the track generique, not conformite"},
		{Conformity, "produits/PRD-1.json", "", "belongs to the track generique, not conformite"},
		{Purchasing, "regles-achat.json", "/regles-achat", ""},
		{Purchasing, "livraisons/LIV-1.json", "/livraisons/LIV-1", ""},
		{Purchasing, "_systeme/404.json", "/_systeme/404", ""},
		{Purchasing, "referentiel.json", "", "belongs to the track conformite, not generique"},
		{Purchasing, "entites/ENT-1.json", "", "belongs to the track conformite, not generique"},
		{Purchasing, "produits/a/b.json", "", "not a rules resource"},
	}
	for _, tt := range tests {
		t.Run(tt.track.Name+"/"+tt.file, func(t *testing.T) {
			path, err := tt.track.PathOf(tt.file)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.path, path)
			assert.True(t, tt.track.Owns(path))
		})
	}
}

func TestTrackOf(t *testing.T) {
	for path, want := range map[string]*Track{
		"/referentiel":           Conformity,
		"/listes/agrees/x":       Conformity,
		"/regles-achat":          Purchasing,
		"/disponibilites/DSP-01": Purchasing,
		"/_systeme/403":          nil,
		"/autres/x":              nil,
	} {
		got, ok := TrackOf(path)
		assert.Equal(t, want != nil, ok, path)
		assert.Same(t, want, got, path)
	}
}

func TestAbsentBodyIsDeterministic(t *testing.T) {
	a := AbsentBody("/avenants/AVN-3412")
	assert.Equal(t, string(a), string(AbsentBody("/avenants/AVN-3412")))
	assert.Contains(t, string(a), `"ressource": "/avenants/AVN-3412"`)
	assert.Contains(t, string(a), `"existe": false`)
}

// FuzzCheckTarget checks that whatever CheckTarget accepts is a path the
// contract allows, and that Classify never sends a malformed target further.
func FuzzCheckTarget(f *testing.F) {
	for _, seed := range []string{"/agrements/AGR-4417", "/listes/agrees/x-p2", "/a/../b", "/%2e", "//", "/x?", "/x#", "/é", "/_systeme/403"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, target string) {
		path, err := CheckTarget(target)
		outcome, classified, ref := Classify(target, func(string) bool { return false })
		if err != nil {
			if outcome != Malformed {
				t.Fatalf("%q refused by CheckTarget but classified %v", target, outcome)
			}
			return
		}
		if path != target || outcome == Malformed || classified != path {
			t.Fatalf("%q accepted but changed or classified malformed", target)
		}
		if !strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") || strings.ContainsAny(path, "?#% \\\"<>") ||
			strings.Contains(path, "//") || strings.Contains(path+"/", "/./") || strings.Contains(path+"/", "/../") {
			t.Fatalf("%q accepted but breaks the grammar", path)
		}
		for i := 0; i < len(path); i++ {
			if path[i] < 0x21 || path[i] > 0x7e {
				t.Fatalf("%q accepted with byte %#x", path, path[i])
			}
		}
		if outcome == AbsentReference {
			collection, id, ok := ref.Collection(), ref.ID(), ref.isValid()
			if !ok || !ValidID(id) || "/"+collection+"/"+id != path || ref.Path() != path {
				t.Fatalf("%q classified absent but does not split into a collection and an id", path)
			}
		}
	})
}
