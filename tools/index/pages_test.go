package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// The pages' tests, on pages rendered from figures written here: what a
// reader is shown, whatever the replay found.

func rate(f float64) *float64 { return &f }

func row(id, agent string, founded int, r *float64) Row {
	return Row{ID: id, Agent: agent, DID: "did:key:z6Mk" + id, Success: Success{Founded: founded, OutOf: 10}, Rendered: 10,
		Overclaim: Overclaim{Unsupported: 0, Rendered: 30, Rate: r}, Stack: "stack de " + agent, ProofsLink: "https://example.org/" + id + "/"}
}

func referenceRow(id, agent string) Row {
	r := row(id, agent, 10, rate(0))
	model, version, framework, prompt := "modele-a", "2026-09", "cadre", "prompt-v1"
	r.ReferenceRun = ReferenceRun{Model: &model, Version: &version, Framework: &framework, Prompt: &prompt}
	return r
}

// fixture is a track's Index with a reference run, two agents tied at one
// place, one below and one with no rendered assertion.
func fixture() *Index {
	return &Index{Anchoring: anchoredValue, Season: 1, Track: "conformite", ManifestSHA256: strings.Repeat("ab", 32),
		Opening: "2026-03-10T00:00:00Z", Closing: "2026-04-30T23:59:59Z",
		Constant: Constant{Verdict: "non_conforme", Success: 4, OutOf: 10},
		Tables: Tables{
			Reference: []Row{referenceRow("ref-1", "Référence 1")},
			Community: []Row{row("alice", "Alice", 10, rate(0)), row("eve", "Eve", 10, rate(0)), row("bob", "Bob", 7, rate(0.1)), row("zed", "Zed", 0, nil)},
		},
		NotRanked: []Unranked{{ID: "dave", Agent: "Dave", DID: "did:key:z6Mkdave", Reason: SameKey, RankedAs: "alice"}},
		Trust:     TrustUsed{Source: trustPinned},
	}
}

func enrollment(id, agent string) *Enrollment {
	return &Enrollment{ID: id, Agent: agent, DID: "did:key:z6Mk" + id, Table: TableCommunity, Stack: "stack de " + agent,
		ProofsLink: "https://example.org/" + id + "/"}
}

func report(t *testing.T, en *Enrollment, rep *replayed) []byte {
	t.Helper()
	data, err := renderReport(reportPage{Index: fixture(), Enrollment: en, Row: row(en.ID, en.Agent, 3, rate(0.25)), Replayed: rep, Version: "v1.2.3"})
	require.NoError(t, err)
	return data
}

func track(t *testing.T, idx *Index) []byte {
	t.Helper()
	data, err := renderTrack(idx, "v1.2.3")
	require.NoError(t, err)
	return data
}

// page is a rendered page read back: its visible text, and its tables'
// cells by table, row id and column.
type readPage struct {
	text  string
	cells map[string]string // "table/row/column"
	doc   *html.Node
}

func read(t *testing.T, data []byte) readPage {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(data))
	require.NoError(t, err)
	p := readPage{cells: map[string]string{}, doc: doc}
	var text strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "style" || n.Data == "head") {
			return
		}
		if n.Type == html.TextNode {
			text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	p.text = strings.Join(strings.Fields(text.String()), " ")
	for _, c := range must(htmlCellsOf(data)) {
		p.cells[c.table+"/"+c.participant+"/"+c.column] = c.value
	}
	return p
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// htmlCellsOf reads a page's cells as the check does.
func htmlCellsOf(data []byte) ([]cell, error) { return htmlCells(data) }

// The constant-best-answer row counts exact verdicts of one verdict
// answered everywhere, founded on nothing: it says so wherever it is
// shown, and not as a success rate.
func TestConstantRow(t *testing.T) {
	trackPage := read(t, track(t, fixture()))
	reportPage := read(t, report(t, enrollment("bob", "Bob"), &replayed{conditions: string(score.ProofsVerified)}))
	tests := []struct {
		name, got, want string
	}{
		{"the community table's success", trackPage.cells["communaute/meilleure_reponse_constante/reussite"], "4 / 10 verdicts exacts, aucun fondé"},
		{"the reference table's success", trackPage.cells["reference/meilleure_reponse_constante/reussite"], "4 / 10 verdicts exacts, aucun fondé"},
		{"the row's name", trackPage.cells["communaute/meilleure_reponse_constante/agent"], "meilleure réponse constante (verdict « non conforme » partout, sans un appel)"},
		{"the report's line", reportPage.cells["inscription/meilleure_reponse_constante/valeur"], "4 / 10 verdicts exacts, aucun fondé (verdict « non conforme » partout, sans un appel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.got)
		})
	}
	assert.Contains(t, trackPage.text, "Ligne pointillée : meilleure réponse constante : 4 / 10 verdicts exacts, aucun fondé", "the chart's legend")
}

// A report of every status, cause, failed check and verdict, each shown
// in French with its accents, never as its code.
func everyCode() *replayed {
	rep := &replayed{conditions: string(score.ProofsVerified)}
	var failures []string
	for _, c := range proofs.Checks {
		failures = append(failures, string(c))
	}
	rep.tasks = []taskView{
		{ID: "conf-01", Status: string(score.Rendered), Verdict: "non_conforme", Exact: true, Founded: new(bool), Assertions: []assertionView{
			{ID: "a1", Status: string(score.Unsupported), Cause: string(score.InvalidProof), Failures: []proofFailures{{"prf_20260315_090001_aaaaaa", failures}}},
			{ID: "a2", Status: string(score.Unsupported), Cause: string(score.UnboundIdentity)},
			{ID: "a3", Status: string(score.Unsupported), Cause: string(score.ResourceMismatch)},
			{ID: "a4", Status: string(score.Unsupported), Cause: string(score.ValueMismatch)},
			{ID: "a5", Status: string(score.Supported)},
			{ID: "a6", Status: string(score.InstrumentFault)},
			{ID: "a7", Status: string(score.Pending)},
		}},
		{ID: "conf-02", Status: string(score.NotRendered), Verdict: "indeterminable"},
		{ID: "conf-03", Status: string(score.RejectedEntry), Verdict: "conforme"},
		{ID: "conf-04", Status: string(score.RejectedAtClose), Verdict: "aucune_option_valide"},
	}
	return rep
}

func TestReportWords(t *testing.T) {
	p := read(t, report(t, enrollment("bob", "Bob"), everyCode()))
	var tests []struct{ code, word string }
	for _, c := range slices.Concat(taskCodes, assertionCodes, causeCodes, checkCodes,
		[]string{score.Anchored, string(score.ProofsVerified), "non_conforme", "indeterminable", "aucune_option_valide"}) {
		tests = append(tests, struct{ code, word string }{c, terms[c].Word})
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			require.NotEmpty(t, tt.word)
			assert.Contains(t, p.text, tt.word, "its French words")
			if !strings.Contains(tt.word, tt.code) {
				assert.NotRegexp(t, `(^|[^\pL_])`+tt.code+`($|[^\pL_])`, p.text, "its code")
			}
		})
	}
	assert.Equal(t, "prf_20260315_090001_aaaaaa : vue publique absente, vue publique illisible, version de spécification antérieure à 3.1, "+
		"engagements incomplets, racine des engagements différente, identité non ouverte, identité non liée, identité d'un autre DID, "+
		"paire du hash de requête non ouverte, paire du hash de réponse non ouverte, signature invalide, clé hors de l'historique, clé retirée, "+
		"chemin du lot invalide, jeton d'horodatage illisible ou non accordé, empreinte du jeton d'horodatage différente, "+
		"signataire du jeton d'horodatage non reconnu, jeton d'horodatage hors de la saison, entrée Rekor non fournie, entrée Rekor invérifiable, "+
		"entrée Rekor d'un autre type, empreinte Rekor différente, signataire Rekor non reconnu, horodatage signé Rekor invalide, "+
		"inclusion Rekor non prouvée, point de contrôle Rekor invalide, coordonnées Rekor différentes",
		p.cells["assertions/conf-01/a1/echecs"], "every failed check, in order, by its French name")
	assert.Contains(t, p.text, "piste conformité")
}

// Every code a page can print has French words: a check, a status or a
// verdict added later cannot reach a page as its code.
func TestWordsCoverEveryCode(t *testing.T) {
	codes := slices.Concat(taskCodes, assertionCodes, causeCodes, sourceCodes)
	for _, c := range proofs.Checks {
		codes = append(codes, string(c))
	}
	for _, tr := range corpus.Tracks {
		rules, err := season.RulesNamed(tr.Name)
		require.NoError(t, err)
		codes = append(codes, rules.Verdicts...)
		assert.NotEqual(t, tr.Name, trackWord(tr.Name), "the track %s has its French name", tr.Name)
	}
	for _, c := range codes {
		t.Run(c, func(t *testing.T) {
			term, ok := terms[c]
			require.True(t, ok, "no French words for %s", c)
			assert.NotContains(t, term.Word, "_")
			assert.NotEmpty(t, term.Meaning)
		})
	}
}

// Beside each assertion, what it claimed; beside a value that does not
// match, the value the corpus serves there, read from the tree the replay
// compared with.
func TestClaims(t *testing.T) {
	claim := func(id, resource, field, value string) score.Assertion {
		return score.Assertion{ID: id, Claim: season.Fact{Resource: resource, Field: field, Value: json.RawMessage(value)}}
	}
	sub := &score.Submission{TaskID: "conf-01", Assertions: []score.Assertion{
		claim("a1", "/entites/ENT-1102", "/statut", `"fermee"`),
		claim("a2", "/entites/ENT-1102", "/champ_absent", `"x"`),
		claim("a3", "/entites/ENT-1102", "/statut", `"active"`),
		claim("a4", "/agrements/AGR-4417", "/statut", `"actif"`),
	}}
	cause := func(c score.Cause) *score.Cause { return &c }
	rep := &score.Report{Track: "conformite", Conditions12: score.ProofsVerified, Tasks: []score.TaskReport{{TaskID: "conf-01", Status: score.Rendered,
		Assertions: []score.AssertionReport{
			{ID: "a1", Status: score.Unsupported, Cause: cause(score.ValueMismatch)},
			{ID: "a2", Status: score.Unsupported, Cause: cause(score.ValueMismatch)},
			{ID: "a3", Status: score.Supported},
			{ID: "a4", Status: score.Unsupported, Cause: cause(score.ResourceMismatch)},
		}}}}
	founded := 0
	rep.Success.Founded = &founded
	view, err := replayedOf(rep, []score.Parsed{{Submission: sub}})
	require.NoError(t, err)
	p := read(t, report(t, enrollment("bob", "Bob"), view))
	tests := []struct {
		id, claim, served string
	}{
		{"a1", `/entites/ENT-1102 /statut = "fermee"`, `"active"`},
		{"a2", `/entites/ENT-1102 /champ_absent = "x"`, "champ absent de la ressource servie"},
		{"a3", `/entites/ENT-1102 /statut = "active"`, "—"},
		{"a4", `/agrements/AGR-4417 /statut = "actif"`, "—"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			assert.Equal(t, tt.claim, p.cells["assertions/conf-01/"+tt.id+"/claim"])
			assert.Equal(t, tt.served, p.cells["assertions/conf-01/"+tt.id+"/valeur_servie"])
		})
	}
}

// A value is shown as its text reads, Hélène and never H\u00e9l\u00e8ne:
// the canonical form escapes every character outside ASCII, for hashing.
func TestValuesInUTF8(t *testing.T) {
	fact := season.Fact{Resource: "/beneficiaires/ENT-6021", Field: "/entrees/0/prenoms", Value: json.RawMessage(`"H\u00e9l\u00e8ne"`)}
	rep := &score.Report{Track: "conformite", Tasks: []score.TaskReport{{TaskID: "conf-06", Status: score.Rendered, MissingFacts: []season.Fact{fact},
		Assertions: []score.AssertionReport{{ID: "a1", Status: score.Supported}}}}}
	founded := 0
	rep.Success.Founded = &founded
	sub := &score.Submission{TaskID: "conf-06", Assertions: []score.Assertion{{ID: "a1", Claim: fact}}}
	view, err := replayedOf(rep, []score.Parsed{{Submission: sub}})
	require.NoError(t, err)
	data := report(t, enrollment("helene", "Hélène"), view)
	p := read(t, data)
	want := `/beneficiaires/ENT-6021 /entrees/0/prenoms = "Hélène"`
	tests := []struct{ name, got, want string }{
		{"a missing fact", p.cells["taches/conf-06/faits_manquants"], want},
		{"a claim", p.cells["assertions/conf-06/a1/claim"], want},
		{"an agent's name", p.cells["inscription/agent/valeur"], "Hélène"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.got)
		})
	}
	assert.NotContains(t, string(data), `\u00e9`)
}

// hostile is text a third party could write to reorder or hide the text
// around it: every bidirectional control and zero-width or format
// character the pages must not carry.
const hostile = "A\u202aB\u202bC\u202cD\u202dE\u202eF\u2066G\u2067H\u2068I\u2069J\u200eK\u200fL\u061cM\u200bN\u200cO\u200dP\u2060Q\ufeffR\u00adS"

// No format character a third party wrote reaches a page: each is shown
// escaped, wherever the text is shown (tables, chart, legend, titles,
// report, narratives).
func TestThirdPartyText(t *testing.T) {
	tests := []struct {
		name  string
		pages func(t *testing.T) [][]byte
	}{
		{"an agent's name, in the tables, the chart and the not-ranked list", func(t *testing.T) [][]byte {
			idx := fixture()
			idx.Tables.Community[0].Agent = hostile
			idx.Tables.Community[3].Agent = hostile // no rendered assertion: named in the legend
			idx.NotRanked[0].Agent = hostile
			return [][]byte{track(t, idx), report(t, enrollment("alice", hostile), &replayed{})}
		}},
		{"a stack", func(t *testing.T) [][]byte {
			idx := fixture()
			idx.Tables.Community[1].Stack = hostile
			en := enrollment("eve", "Eve")
			en.Stack = hostile
			return [][]byte{track(t, idx), report(t, en, &replayed{})}
		}},
		{"a DID and a link", func(t *testing.T) [][]byte {
			idx := fixture()
			idx.Tables.Community[1].DID, idx.Tables.Community[1].ProofsLink = "did:"+hostile, "https://example.org/"+hostile
			idx.NotRanked[0].DID = "did:" + hostile
			en := enrollment("eve", "Eve")
			en.DID, en.ProofsLink = "did:"+hostile, "https://example.org/"+hostile
			return [][]byte{track(t, idx), report(t, en, &replayed{})}
		}},
		{"a reference run's model, version, framework and prompt", func(t *testing.T) [][]byte {
			idx := fixture()
			h := hostile
			idx.Tables.Reference[0].ReferenceRun = ReferenceRun{Model: &h, Version: &h, Framework: &h, Prompt: &h}
			en := enrollment("ref-1", "Référence 1")
			en.Table, en.ReferenceRun = TableReference, idx.Tables.Reference[0].ReferenceRun
			return [][]byte{track(t, idx), report(t, en, &replayed{})}
		}},
		{"a narrative, a claim and a reason", func(t *testing.T) [][]byte {
			rep := &replayed{narratives: []Narrative{{TaskID: "conf-01" + hostile, Text: "ligne 1\n" + hostile + "\nligne 3"}},
				tasks: []taskView{{ID: "conf-01" + hostile, Status: string(score.RejectedAtClose), Reason: hostile, Verdict: hostile, Missing: []string{hostile},
					Assertions: []assertionView{{ID: hostile, Status: string(score.Unsupported), Cause: string(score.ValueMismatch), Served: hostile,
						Claim:    &season.Fact{Resource: hostile, Field: hostile, Value: json.RawMessage(strconv.Quote(hostile))},
						Failures: []proofFailures{{hostile, []string{string(proofs.CheckSignature)}}}}}}}}
			return [][]byte{report(t, enrollment("bob", "Bob"), rep)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, page := range tt.pages(t) {
				require.NotEmpty(t, page)
				for _, r := range string(page) {
					require.False(t, unicode.Is(unicode.Cf, r), "%U reaches the page", r)
				}
				assert.Contains(t, string(page), `A\u202aB\u202bC\u202cD\u202dE\u202eF\u2066G\u2067H\u2068I\u2069J\u200eK\u200fL\u061cM\u200bN\u200cO\u200dP\u2060Q\ufeffR\u00adS`,
					"shown escaped, visibly")
			}
		})
	}
}

// Agents at one place of the chart each have their mark, side by side,
// none under another, within the chart; the legend names every one.
func TestChartSamePlace(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		founded int
		rate    float64
	}{
		{"two agents at the top right corner's axis", 2, 10, 0},
		{"five agents, past a row", 5, 10, 0},
		{"nine agents at the top left corner", 9, 0, 1},
		{"three agents in the middle", 3, 5, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []Row
			for i := range tt.n {
				rows = append(rows, row(fmt.Sprintf("agent-%d", i), fmt.Sprintf("Agent %d", i), tt.founded, rate(tt.rate)))
			}
			out, err := execute("chart", chart(TableCommunity, rows, ranks(rows), Constant{Verdict: "non_conforme", Success: 4, OutOf: 10}))
			require.NoError(t, err)
			doc, err := html.Parse(strings.NewReader(string(out)))
			require.NoError(t, err)
			type mark struct{ x, y float64 }
			marks := map[string]mark{}
			var legend []string
			var walk func(n *html.Node)
			walk = func(n *html.Node) {
				if n.Type == html.ElementNode && n.Data == "circle" {
					attrs := map[string]string{}
					for _, a := range n.Attr {
						attrs[a.Key] = a.Val
					}
					x, _ := strconv.ParseFloat(attrs["cx"], 64)
					y, _ := strconv.ParseFloat(attrs["cy"], 64)
					marks[attrs["data-id"]] = mark{x, y}
				}
				if n.Type == html.ElementNode && n.Data == "li" {
					legend = append(legend, strings.TrimSpace(textIn(n)))
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(doc)
			require.Len(t, marks, tt.n, "a mark each: %v", slices.Collect(maps.Keys(marks)))
			for i, r := range rows {
				m, ok := marks[r.ID]
				require.True(t, ok, r.ID)
				assert.True(t, m.x-markRadius >= 0 && m.x+markRadius <= chartWidth && m.y-markRadius >= 0 && m.y+markRadius <= chartHeight, "%s within the chart: %v", r.ID, m)
				for _, other := range rows[i+1:] {
					o := marks[other.ID]
					assert.GreaterOrEqual(t, (m.x-o.x)*(m.x-o.x)+(m.y-o.y)*(m.y-o.y), float64(4*markRadius*markRadius), "%s and %s overlap", r.ID, other.ID)
				}
				assert.Contains(t, legend, fmt.Sprintf("1. %s : réussite %d / 10, overclaim %s.", r.Agent, tt.founded, percent(tt.rate)))
			}
		})
	}
}

func textIn(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textIn(c))
	}
	return b.String()
}

// Every page says how to re-derive it: the tool's version, the exact
// command, the files it reads and the season's closing, the only date it
// gives; every table links to the method page, which the site has.
func TestRederive(t *testing.T) {
	dry := fixture()
	dry.Anchoring = score.DryRun
	supplied := fixture()
	supplied.Trust = TrustUsed{Source: "fournie"}
	home := &homePage{Version: "v1.2.3"}
	home.add(corpus.Conformity, fixture())
	site := sinkMap{}
	require.NoError(t, home.write(site))

	tests := []struct {
		name    string
		page    []byte
		command string
		files   []string
	}{
		{"a track's page", track(t, fixture()), "bin/proveit index -check SITE -season DIR",
			[]string{"SITE/conformite/index.html", "SITE/conformite/index.json", "DIR/conformite/inscriptions.json", "DIR/conformite/soumissions/*/*.json",
				"DIR/conformite/cle.json", "DIR/conformite/sel", "DIR/conformite/taches.json", "corpus/saison-1/taches.json", "DIR/views/", "tools/proofs/trust/"}},
		{"a dry run's page", track(t, dry), "bin/proveit index -check SITE -season DIR -dry-run", []string{"DIR/conformite/cle.json"}},
		{"a page verified against supplied trust", track(t, supplied), "bin/proveit index -check SITE -season DIR -trust CONFIANCE", []string{"CONFIANCE"}},
		{"a report", report(t, enrollment("bob", "Bob"), &replayed{}), "bin/proveit index -check SITE -season DIR",
			[]string{"SITE/conformite/bob.html", "SITE/conformite/bob.json", "DIR/conformite/soumissions/bob/*.json"}},
		{"the home page", site["index.html"], "bin/proveit index -check SITE -season DIR", []string{"SITE/index.html"}},
		{"the method page", site[MethodPage], "bin/proveit index -check SITE -season DIR", []string{"SITE/methode.html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := read(t, tt.page)
			box := findID(p.doc, "recalculer")
			require.NotNil(t, box, "the box")
			text := strings.Join(strings.Fields(textIn(box)), " ")
			assert.Contains(t, text, "Recalculer cette page")
			assert.Contains(t, text, "proveit v1.2.3")
			assert.Contains(t, text, "bin/proveit -version "+tt.command+" Fichiers lus", "the commands, exactly")
			for _, f := range tt.files {
				assert.Contains(t, text, f)
			}
			assert.Contains(t, text, "piste conformité : 2026-04-30T23:59:59Z", "the season's closing")
			assert.Contains(t, text, "La page ne dit pas quand elle a été construite")

			var tables, linked int
			eachElementIn(p.doc, "table", func(n *html.Node) {
				tables++
				eachElementIn(n, "caption", func(c *html.Node) {
					eachElementIn(c, "a", func(a *html.Node) {
						if strings.HasPrefix(strings.TrimPrefix(attr(a, "href"), "../"), MethodPage) {
							linked++
						}
					})
				})
			})
			if tt.name != "the method page" {
				assert.Equal(t, tables, linked, "every table links to the method page")
			}
		})
	}
	assert.Contains(t, read(t, site[MethodPage]).text, "Méthode et glossaire")
}

type sinkMap map[string][]byte

func (s sinkMap) file(name string, data []byte) error { s[name] = data; return nil }

func findID(n *html.Node, id string) *html.Node {
	if n.Type == html.ElementNode && attr(n, "id") == id {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findID(c, id); f != nil {
			return f
		}
	}
	return nil
}

func eachElementIn(n *html.Node, tag string, f func(*html.Node)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == tag {
			f(c)
		}
		eachElementIn(c, tag, f)
	}
}

// A third party's text and link reach a page through html/template's own
// escaping, in their context: a name that closes a cell stays the text of
// its cell, and a link goes through the template's URL filter, so that a
// quote or an angle bracket is percent-encoded in the href and a scheme
// other than http, https or mailto never becomes a link's target.
func TestThirdPartyMarkup(t *testing.T) {
	const (
		agent = `Eve</td><td>x & "y"`
		stack = `<b>a+b</b>`
		// Accepted at enrollment: an absolute https URL, printable.
		accepted = `https://example.org/a"b<c>'d e`
		encoded  = `https://example.org/a%22b%3cc%3e%27d%20e`
	)
	en := enrollment("eve", agent)
	en.Stack, en.ProofsLink = stack, accepted
	en.Key, en.EnrolledAt = strings.Repeat("ab", 32), "2026-03-11T00:00:00Z"
	require.Nil(t, en.check(), "the enrollment is one ReadEnrollments accepts")
	idx := fixture()
	idx.Tables.Community[1].Agent, idx.Tables.Community[1].Stack, idx.Tables.Community[1].ProofsLink = agent, stack, accepted
	// A link no enrollment carries (ReadEnrollments wants http or https):
	// the page does not rest on that check alone.
	idx.Tables.Community[2].ProofsLink = "javascript:alert(1)"
	trackPage, reportPage := read(t, track(t, idx)), read(t, report(t, en, &replayed{}))
	tests := []struct{ name, got, want string }{
		{"the agent's cell in the table", trackPage.cells["communaute/eve/agent"], agent + " <eve.html>"},
		{"the stack's cell in the table", trackPage.cells["communaute/eve/stack_declaree"], stack + " stack déclarée, non vérifiée"},
		{"the link in the table", trackPage.cells["communaute/eve/lien_preuves"], "preuves <" + encoded + ">"},
		{"a link of another scheme", trackPage.cells["communaute/bob/lien_preuves"], "preuves <#ZgotmplZ>"},
		{"the agent in the report", reportPage.cells["inscription/agent/valeur"], agent},
		{"the stack in the report", reportPage.cells["inscription/stack_declaree/valeur"], stack + " stack déclarée, non vérifiée"},
		{"the link in the report", reportPage.cells["inscription/lien_preuves/valeur"], "preuves <" + encoded + ">"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.got)
		})
	}
	var cells []string
	for key := range trackPage.cells {
		if strings.HasPrefix(key, "communaute/eve/") {
			cells = append(cells, key)
		}
	}
	assert.Len(t, cells, 1+len(columns72), "the row's cells, none the name opened: %v", cells)
}

// No markup is assembled in Go from a string: the package's code names
// none of html/template's types of trusted content (template.HTML and its
// kin), which would let a string past the template's escaping. Every page
// is written by the template, each value escaped in its context.
func TestNoTrustedContentInGo(t *testing.T) {
	trusted := []string{"HTML", "HTMLAttr", "JS", "JSStr", "CSS", "URL", "Srcset"}
	files, err := filepath.Glob(filepath.Join("tools", "index", "*.go")) // TestMain runs the tests from the module's root
	require.NoError(t, err)
	require.Contains(t, files, filepath.Join("tools", "index", "pages.go"))
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		local := "" // the name html/template is imported under
		for _, imp := range f.Imports {
			if imp.Path.Value == `"html/template"` {
				local = "template"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && slices.Contains(trusted, sel.Sel.Name) {
					t.Errorf("%s: %s.%s trusts a string as markup", fset.Position(sel.Pos()), local, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
