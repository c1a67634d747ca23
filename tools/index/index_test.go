package index_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/index/indextest"
)

func TestMain(m *testing.M) {
	// The season's default files are the repository's, named from its root.
	if err := os.Chdir("../.."); err != nil {
		panic(err)
	}
	code := m.Run()
	for _, dir := range cleanup {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

var (
	cleanup []string
	once    sync.Once
	shared  string
)

// The shared season: on the conformity track a reference run, a careful
// agent, a second careful one (a tie), one that hurries, one that guesses
// and a second enrollment on the careful one's key; on the generic track a
// careful agent and one that guesses.
var (
	alice = indextest.Enroll("alice", "Alice <l'agente>", 1, indextest.Careful)
	bob   = indextest.Enroll("bob", "Bob", 2, indextest.Hurried)
	carol = indextest.Enroll("carol", "Carol", 3, indextest.Guesser)
	dave  = indextest.SameKeyAs(indextest.Enroll("dave", "Dave", 4, indextest.Careful), alice)
	eve   = indextest.Enroll("eve", "Eve", 5, indextest.Careful)
	ref   = indextest.Reference(indextest.Enroll("ref-1", "Référence 1", 0, indextest.Careful), "modele-a")
)

func season(t *testing.T) string {
	once.Do(func() {
		dir, err := os.MkdirTemp("", "index-season-")
		require.NoError(t, err)
		cleanup = append(cleanup, dir, indextest.TrustOf(dir))
		s := indextest.New(t, dir)
		s.Track(t, corpus.Conformity, []indextest.Enrollment{ref, alice, bob, carol, dave, eve})
		s.Track(t, corpus.Purchasing, []indextest.Enrollment{alice, carol})
		s.CloseBatch(t)
		s.WriteViews(t)
		shared = dir
	})
	require.NotEmpty(t, shared, "the shared season was built")
	return shared
}

func build(t *testing.T, o index.Options) string {
	t.Helper()
	site := t.TempDir()
	require.NoError(t, index.Build(o, site))
	return site
}

func published(dir string) index.Options {
	return index.Options{Season: dir, TrustDir: indextest.TrustOf(dir), Now: func() time.Time { return indextest.AfterClose }}
}

// siteFiles reads every file of a site by its path in it.
func siteFiles(t *testing.T, site string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(site, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	}))
	return files
}

// keys are an object's member names in order.
func keys(t *testing.T, v pyjson.Value) []string {
	t.Helper()
	obj, ok := v.(pyjson.Object)
	require.True(t, ok, "an object")
	var out []string
	for _, m := range obj {
		out = append(out, m.Key)
	}
	return out
}

func get(t *testing.T, v pyjson.Value, pointer string) pyjson.Value {
	t.Helper()
	got, ok := pyjson.Lookup(v, pointer)
	require.True(t, ok, pointer)
	return got
}

func readIndex(t *testing.T, site, track string) (pyjson.Value, index.Index) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(site, track, "index.json"))
	require.NoError(t, err)
	doc, err := pyjson.Parse(data)
	require.NoError(t, err)
	var idx index.Index
	require.NoError(t, json.Unmarshal(data, &idx))
	return doc, idx
}

// The index.json of each track has the contract's shape, members in its
// order, rows in the tie-break's order, one participant per key.
func TestIndexJSON(t *testing.T) {
	site := build(t, published(season(t)))
	doc, idx := readIndex(t, site, "conformite")
	assert.Equal(t, []string{"ancrage", "saison", "piste", "manifest_sha256", "preenregistrement", "preenregistrement_sha256", "ouverture", "cloture",
		"meilleure_reponse_constante", "tableaux", "non_classes", "confiance", "texte_de_tiers"}, keys(t, doc))
	record, err := os.ReadFile(filepath.Join(season(t), "conformite", "preenregistrement.json"))
	require.NoError(t, err)
	assert.Equal(t, anchor.SHA256(record), idx.RecordSHA256, "the record the Index was checked against")
	// The trust material a reader named, each file by its hash, no path.
	assert.Equal(t, "fournie", idx.Trust.Source)
	require.NotEmpty(t, idx.Trust.Files)
	for _, f := range idx.Trust.Files {
		data, err := os.ReadFile(filepath.Join(indextest.TrustOf(season(t)), filepath.FromSlash(f.Name)))
		require.NoError(t, err, f.Name)
		assert.Equal(t, anchor.SHA256(data), f.SHA256, f.Name)
	}
	assert.Contains(t, idx.ThirdParty.Fields, "/tableaux/*/*/agent")
	assert.Equal(t, []string{"verdict", "reussite", "sur"}, keys(t, get(t, doc, "/meilleure_reponse_constante")))
	assert.Equal(t, []string{"reference", "communaute"}, keys(t, get(t, doc, "/tableaux")))
	row := []string{"id", "agent", "did", "taux_overclaim", "reussite", "taches_rendues", "stack_declaree", "lien_preuves"}
	assert.Equal(t, append(append([]string{}, row...), "modele", "version", "framework", "prompt"), keys(t, get(t, doc, "/tableaux/reference/0")))
	assert.Equal(t, row, keys(t, get(t, doc, "/tableaux/communaute/0")))
	assert.Equal(t, []string{"non_etayees", "rendues", "taux"}, keys(t, get(t, doc, "/tableaux/communaute/0/taux_overclaim")))
	assert.Equal(t, []string{"fondes", "sur"}, keys(t, get(t, doc, "/tableaux/communaute/0/reussite")))
	assert.Equal(t, []string{"id", "agent", "did", "motif", "classee"}, keys(t, get(t, doc, "/non_classes/0")))

	assert.Equal(t, "verifie", idx.Anchoring)
	assert.Equal(t, 1, idx.Season)
	assert.Equal(t, "2026-03-10T00:00:00Z", idx.Opening)
	var order []string
	for _, r := range idx.Tables.Community {
		order = append(order, r.ID)
		require.NotNil(t, r.Overclaim.Rate, r.ID)
		assert.True(t, *r.Overclaim.Rate >= 0 && *r.Overclaim.Rate <= 1, r.ID)
	}
	// alice and eve tie (every task founded, nothing unsupported), bob
	// founded fewer, carol guessed.
	assert.Equal(t, []string{"alice", "eve", "bob", "carol"}, order)
	alice, eve, bob, carol := idx.Tables.Community[0], idx.Tables.Community[1], idx.Tables.Community[2], idx.Tables.Community[3]
	assert.Equal(t, alice.Success, eve.Success)
	assert.Equal(t, alice.Success.OutOf, alice.Success.Founded)
	assert.Equal(t, alice.Success.OutOf-3, bob.Success.Founded)
	assert.Equal(t, alice.Success.OutOf-3, bob.Rendered)
	assert.Greater(t, carol.Overclaim.Unsupported, 0)
	assert.Less(t, carol.Success.Founded, alice.Success.Founded)
	assert.Equal(t, "Alice <l'agente>", alice.Agent, "the name as given")
	require.Len(t, idx.Tables.Reference, 1)
	assert.Equal(t, "modele-a", *idx.Tables.Reference[0].Model)
	assert.Equal(t, []index.Unranked{{ID: "dave", Agent: "Dave", DID: "did:key:z6Mkdave", Reason: "meme_cle", RankedAs: "alice"}}, idx.NotRanked)
	assert.NoFileExists(t, filepath.Join(site, "conformite", "dave.json"), "only ranked enrollments have a report")

	_, gen := readIndex(t, site, "generique")
	assert.Equal(t, "generique", gen.Track)
	assert.Empty(t, gen.Tables.Reference)
	require.Len(t, gen.Tables.Community, 2)
	assert.Empty(t, gen.NotRanked)

	// A report is the replay's, with the enrollment.
	data, err := os.ReadFile(filepath.Join(site, "conformite", "carol.json"))
	require.NoError(t, err)
	report, err := pyjson.Parse(data)
	require.NoError(t, err)
	assert.Equal(t, []string{"ancrage", "saison", "piste", "inscription", "rapport", "recits_non_notes", "texte_de_tiers"}, keys(t, report))
	assert.Contains(t, keys(t, get(t, report, "/texte_de_tiers")), "marque")
	assert.Equal(t, "verifiees", get(t, report, "/rapport/conditions_1_2"))
	assert.Equal(t, "valeur_ne_correspond_pas", get(t, report, "/rapport/taches/0/assertions/0/cause"))
}

// The pages: French, UTF-8, no script and nothing fetched, the columns of
// specification 7.2 in order, the labels every page keeps, ties shown as
// ties, the notice on every page, one track a page.
func TestPages(t *testing.T) {
	site := build(t, published(season(t)))
	files := siteFiles(t, site)
	for name, data := range files {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		page := string(data)
		assert.True(t, utf8.Valid(data), name)
		assert.Contains(t, page, `<html lang="fr">`, name)
		for _, banned := range []string{"<script", "src=", "<link", "@import", "url(", "pire", "worst", "score global"} {
			assert.NotContains(t, strings.ToLower(page), banned, name)
		}
		for _, r := range page {
			assert.False(t, r >= 0x1F300 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF, "%s: an emoji %U", name, r)
		}
		if name != "index.html" {
			assert.Contains(t, page, "AI Act, article 50", name)
		}
		assert.NotContains(t, page, "Essai non ancré", name)
	}
	home := string(files["index.html"])
	assert.Contains(t, home, `href="conformite/index.html"`)
	assert.Contains(t, home, `href="generique/index.html"`)
	assert.Contains(t, home, "AI Act, article 50")
	assert.NotContains(t, home, "<table")
	assert.NotContains(t, home, "<svg")

	page := string(files["conformite/index.html"])
	assert.NotContains(t, page, "generique/", "one track a page")
	assert.Contains(t, page, "Runs de référence : calibration, pas un classement")
	assert.Equal(t, 2, strings.Count(page, "<svg"), "a chart a table")
	assert.Contains(t, page, "meilleure réponse constante : ")
	assert.Contains(t, page, "Alice &lt;l&#39;agente&gt;", "the name escaped")
	tables := pageTables(t, files["conformite/index.html"])
	community := tables["communaute"]
	assert.Equal(t, []string{"rang", "agent", "DID", "taux d'overclaim", "taux de réussite", "tâches rendues", "stack déclarée", "lien vers les preuves"}, community[0])
	assert.Equal(t, "sans objet", community[1][3], "the constant-best-answer row heads the table")
	assert.Contains(t, community[1][1], "meilleure réponse constante")
	assert.Equal(t, "1", community[2][0])
	assert.Equal(t, "1", community[3][0], "a tie shares its rank")
	assert.Equal(t, "3", community[4][0])
	for _, row := range community[2:] {
		assert.Contains(t, row[6], "stack déclarée, non vérifiée", "on every community row")
	}
	assert.True(t, strings.HasPrefix(community[2][3], "0 % (0 claims non étayés / "), community[2][3])
	reference := tables["reference"]
	assert.Equal(t, []string{"n°", "agent", "DID", "taux d'overclaim", "taux de réussite", "tâches rendues", "stack déclarée", "lien vers les preuves", "modèle", "version", "framework", "prompt"}, reference[0])
	assert.Equal(t, "sans objet", reference[1][3])
	assert.Equal(t, "modele-a", reference[2][8])

	report := string(files["conformite/carol.html"])
	assert.Contains(t, report, "AI Act, article 50")
	assert.Contains(t, report, "valeur ne correspondant pas")
	assert.Contains(t, report, "Récits publiés, non notés")
	assert.Contains(t, report, "Verdict deviné, sans lecture des réponses.")
	assert.Contains(t, report, "faits manquants")
}

// pageTables reads a page's tables back, by data-table: each row's cells'
// text, the header first.
func pageTables(t *testing.T, data []byte) map[string][][]string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(data))
	require.NoError(t, err)
	out := map[string][][]string{}
	var table string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "table":
				for _, a := range n.Attr {
					if a.Key == "data-table" {
						table = a.Val
					}
				}
			case "tr":
				var row []string
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode {
						row = append(row, strings.Join(strings.Fields(textOf(c)), " "))
					}
				}
				out[table] = append(out[table], row)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// The same season gives the same bytes.
func TestSameBytes(t *testing.T) {
	dir := season(t)
	first, second := siteFiles(t, build(t, published(dir))), siteFiles(t, build(t, published(dir)))
	require.NotEmpty(t, first)
	assert.Equal(t, len(first), len(second))
	for name, data := range first {
		assert.True(t, bytes.Equal(data, second[name]), name)
	}
}

// A dry run says on every page's first line, and in every JSON's first
// field, that it is not a publication; it is built before the close.
func TestDryRun(t *testing.T) {
	o := index.Options{Season: season(t), TrustDir: indextest.TrustOf(season(t)), DryRun: true, Now: func() time.Time { return indextest.Opening }}
	site := build(t, o)
	for name, data := range siteFiles(t, site) {
		if strings.HasSuffix(name, ".json") {
			doc, err := pyjson.Parse(data)
			require.NoError(t, err)
			assert.Equal(t, "ancrage", keys(t, doc)[0], name)
			assert.Equal(t, "essai_non_ancre", get(t, doc, "/ancrage"), name)
			continue
		}
		doc, err := html.Parse(bytes.NewReader(data))
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(firstVisibleText(doc), "Essai non ancré : ceci n'est pas une publication."), name)
	}
}

// firstVisibleText is the first text of a page's body.
func firstVisibleText(n *html.Node) string {
	if n.Type == html.ElementNode && (n.Data == "head" || n.Data == "style" || n.Data == "title") {
		return ""
	}
	if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
		return strings.TrimSpace(n.Data)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if s := firstVisibleText(c); s != "" {
			return s
		}
	}
	return ""
}

// Check passes on an untouched site and names a cell edited in the JSON,
// a cell edited only in a page, and a file the Index does not have.
func TestCheck(t *testing.T) {
	o := published(season(t))
	site := build(t, o)
	diffs, err := check(o, site)
	require.NoError(t, err)
	assert.Empty(t, diffs)

	edit := func(name, from, to string) {
		file := filepath.Join(site, name)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Contains(t, string(data), from, name)
		require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(data), from, to, 1)), 0o644))
	}
	_, idx := readIndex(t, site, "conformite")
	carol := idx.Tables.Community[3]
	edit("conformite/index.json", `"non_etayees": `+itoa(carol.Overclaim.Unsupported), `"non_etayees": 0`)
	pageFrom := "<td>" + itoa(carol.Success.Founded) + " / " + itoa(carol.Success.OutOf) + "</td>"
	replaceInRow(t, filepath.Join(site, "conformite/index.html"), "carol", pageFrom, "<td>10 / 10</td>")
	require.NoError(t, os.WriteFile(filepath.Join(site, "conformite", "extra.html"), []byte("x"), 0o644))

	diffs, err = check(o, site)
	require.NoError(t, err)
	var lines []string
	for _, d := range diffs {
		lines = append(lines, d.String())
	}
	assert.Contains(t, lines, `conformite conformite/index.json: table communaute, participant carol, column /taux_overclaim/non_etayees: published "0", replayed "`+itoa(carol.Overclaim.Unsupported)+`"`)
	assert.Contains(t, lines, `conformite conformite/index.html: table communaute, participant carol, column reussite: published "10 / 10", replayed "`+itoa(carol.Success.Founded)+" / "+itoa(carol.Success.OutOf)+`"`)
	assert.Contains(t, lines, `conformite conformite/extra.html: table -, participant -, column -: published "present", replayed "absent: not a file of the Index"`)
	assert.Len(t, diffs, 3, strings.Join(lines, "\n"))
}

// check is index.Check with every difference kept.
func check(o index.Options, site string) ([]index.Difference, error) {
	var diffs []index.Difference
	n, err := index.Check(o, site, func(d index.Difference) { diffs = append(diffs, d) })
	if n != len(diffs) {
		panic("index.Check counts other differences than it reports")
	}
	return diffs, err
}

func replaceInRow(t *testing.T, file, id, from, to string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	page := string(data)
	start := strings.Index(page, `<tr data-id="`+id+`"`)
	require.GreaterOrEqual(t, start, 0)
	end := start + strings.Index(page[start:], "</tr>")
	row := page[start:end]
	require.Contains(t, row, from)
	page = page[:start] + strings.Replace(row, from, to, 1) + page[end:]
	require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
}

func itoa(n int) string { return strconv.Itoa(n) }

// Refusals: bad input named on one line (the file, the JSON pointer, the
// rule), the season not closed.
func TestRefusals(t *testing.T) {
	dir := season(t)
	inscriptions := filepath.Join(dir, "conformite", "inscriptions.json")
	tests := []struct {
		name, file, from, to string
		want                 []string
	}{
		{"an unknown member", inscriptions, `"agent": "Bob",`, `"agent": "Bob", "courriel": "bob@example.org",`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/2/courriel", "unknown member"}},
		{"a duplicate key", inscriptions, `"agent": "Bob",`, `"agent": "Bob", "agent": "Robert",`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/2", "duplicate"}},
		{"a name's case", inscriptions, `"agent": "Bob",`, `"Agent": "Bob",`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/2/Agent"}},
		{"an id out of its grammar", inscriptions, `"id": "bob"`, `"id": "Bob"`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/2/id", "a-z, 0-9 and -"}},
		{"two enrollments of one id", inscriptions, `"id": "bob"`, `"id": "carol"`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/3/id", "names /inscriptions/2 already"}},
		{"a community enrollment with a model", inscriptions, `"agent": "Bob",`, `"agent": "Bob", "modele": "m",`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/2/modele", "unknown member"}},
		{"a reference run whose prompt is null", inscriptions, `"prompt": "prompt-v1"`, `"prompt": null`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/0/prompt", "non-empty printable text"}},
		{"a reference run without its prompt", inscriptions, `"prompt": "prompt-v1"`, `"promptx": "prompt-v1"`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/0/promptx", "unknown member"}},
		{"a key that is no SHA-256", inscriptions, `"cle": "` + bobKey(), `"cle": "X` + bobKey()[1:],
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/2/cle", "64 lowercase hex"}},
		{"an enrollment time not in UTC", inscriptions, `"inscrit_le": "2026-03-10T00:02:00Z"`, `"inscrit_le": "2026-03-10T00:02:00+02:00"`,
			[]string{"season " + dir + ": conformite/inscriptions.json /inscriptions/2/inscrit_le", "UTC"}},
		{"another track's export", inscriptions, `"piste": "conformite"`, `"piste": "generique"`,
			[]string{"season " + dir + ": conformite/inscriptions.json /piste"}},
		{"a submission of another DID", filepath.Join(dir, "conformite", "soumissions", "bob", "conf-01.json"), `"agent_did": "did:key:z6Mkbob"`, `"agent_did": "did:key:z6Mkcarol"`,
			[]string{"season " + dir + ": conformite/soumissions/bob/conf-01.json /agent_did", "not the DID"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			original, err := os.ReadFile(tt.file)
			require.NoError(t, err)
			t.Cleanup(func() { os.WriteFile(tt.file, original, 0o644) })
			require.Contains(t, string(original), tt.from)
			require.NoError(t, os.WriteFile(tt.file, bytes.Replace(original, []byte(tt.from), []byte(tt.to), 1), 0o644))
			err = index.Build(published(dir), t.TempDir())
			var input *index.InputError
			require.True(t, errors.As(err, &input), "%v", err)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
			assert.NotContains(t, err.Error(), "\n")
		})
	}

	t.Run("before the close", func(t *testing.T) {
		err := index.Build(index.Options{Season: dir, TrustDir: indextest.TrustOf(dir), Now: func() time.Time { return indextest.Opening }}, t.TempDir())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "refusing to publish before the season's close")
	})
	t.Run("a salt that does not open the record", func(t *testing.T) {
		salt := filepath.Join(dir, "conformite", "sel")
		original, err := os.ReadFile(salt)
		require.NoError(t, err)
		t.Cleanup(func() { os.WriteFile(salt, original, 0o600) })
		require.NoError(t, os.WriteFile(salt, []byte(strings.Repeat("ab", 32)+"\n"), 0o600))
		err = index.Build(published(dir), t.TempDir())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "refusing to publish")
		assert.Contains(t, err.Error(), "engagement_cle")
		assert.NotContains(t, err.Error(), "\n")
	})
}

func bobKey() string { return bob.Key }

// While a cited proof is pending, no Index: the refusal names them.
func TestPending(t *testing.T) {
	dir := t.TempDir()
	s := indextest.New(t, dir)
	s.Track(t, corpus.Conformity, []indextest.Enrollment{indextest.Enroll("solo", "Solo", 1, indextest.Careful)})
	s.WriteViews(t)
	err := index.Build(published(dir), t.TempDir())
	var pending *index.PendingError
	require.True(t, errors.As(err, &pending), "%v", err)
	assert.NotEmpty(t, pending.Proofs)
	assert.Contains(t, err.Error(), pending.Proofs[0])

	s.CloseBatch(t)
	s.WriteViews(t)
	require.NoError(t, index.Build(published(dir), t.TempDir()))
}
