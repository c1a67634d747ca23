// Package toytrack_test proves the seam between the tracks and the rest: a
// toy third track, built whole in this test and registered as the
// season's two are, goes through the linter, the answer key, the solver,
// the corpus server and the score replay without a line of theirs naming
// it, and without touching a file of the real tracks.
package toytrack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/arkforge/proveit-corpus" // the corpus server's Caddy modules
	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/corpus/corpustest"
	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/lint/linttest"
	"github.com/arkforge/proveit-corpus/tools/probe"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
	"github.com/arkforge/proveit-corpus/tools/tracks"
)

// The toy track: toys (jouets), each in a box (boite). One criterion, J1:
// the toy exists, is neuf, and its box is intacte.
var toy = corpus.Register(&corpus.Track{Name: "jouet", Rules: "/regles-jouet", Collections: []string{"jouets", "boites"}})

const (
	compliant      = "conforme"
	nonCompliant   = "non_conforme"
	indeterminable = "indeterminable"
)

// statement is a toy task's own member: the toy examined.
type statement struct {
	Toy string `json:"jouet"`
}

func toyOf(task season.Task) string { return task.Own.(*statement).Toy }

var rules = &season.Rules{
	Track:    toy,
	Verdicts: []string{compliant, nonCompliant, indeterminable},
	Decisions: map[string]season.Decision{
		nonCompliant:   season.AnyFailed,
		indeterminable: season.AnyUndetermined,
	},
	Composition: season.Composition{
		Exactly: map[string]int{compliant: 1, nonCompliant: 1, indeterminable: 1},
		Traps:   season.Traps{Families: []string{"P1"}},
	},
	Statement: func() any { return new(statement) },
	Cites:     func(t season.Task) []string { return []string{toyOf(t)} },
	Probative: map[string][]string{
		"jouets": {"/existe", "/etat", "/boite"},
		"boites": {"/existe", "/etat"},
	},
	Owner:     "the toy's",
	SubjectOf: toyOf,
	// A task's own resources are its toy and the toy's box.
	Walk: func(g *season.Graph, task season.Task) error {
		doc, err := g.AddOwn(toyOf(task))
		if box, ok := doc.Get("boite"); ok && err == nil {
			_, err = g.AddOwn(box.(string))
		}
		return err
	},
}

// examine is J1, as the reference solver applies it.
func examine(task season.Task, fetch season.Fetcher, full bool) (*solver.Result, error) {
	w := solver.NewWalker(task.ID, fetch, full)
	if _, _, err := w.Get(toy.Rules); err != nil {
		return nil, err
	}
	c := solver.Criterion{Code: "J1"}
	w.Result.Verdict, c.Outcome, c.Reason = compliant, solver.Met, "a neuf toy in an intacte box"
	path := toyOf(task)
	doc, exists, err := w.Get(path)
	if err != nil {
		return nil, err
	}
	var facts []season.Fact // what the outcome rests on
	state, _ := doc.Get("etat")
	switch {
	case !exists:
		w.Result.Verdict, c.Outcome, c.Reason = indeterminable, solver.Undetermined, "the toy answers existe: false"
		facts = []season.Fact{w.Fact(path, "/existe")}
	case state != "neuf":
		w.Result.Verdict, c.Outcome, c.Reason = nonCompliant, solver.Failed, fmt.Sprintf("the toy is %v", state)
		facts = []season.Fact{w.Fact(path, "/etat")}
		w.Rest(w.Fact(path, "/existe"))
	default:
		link := w.Fact(path, "/boite")
		boxPath, _ := link.StringValue()
		box, boxed, err := w.Get(boxPath)
		if err != nil {
			return nil, err
		}
		boxState, _ := box.Get("etat")
		switch {
		case !boxed:
			w.Result.Verdict, c.Outcome, c.Reason = indeterminable, solver.Undetermined, "the box answers existe: false"
			facts = []season.Fact{link, w.Fact(boxPath, "/existe")}
		case boxState != "intacte":
			w.Result.Verdict, c.Outcome, c.Reason = nonCompliant, solver.Failed, fmt.Sprintf("the box is %v", boxState)
			facts = []season.Fact{link, w.Fact(boxPath, "/etat")}
		default:
			facts = []season.Fact{w.Fact(path, "/etat"), link, w.Fact(boxPath, "/etat")}
		}
	}
	c.Basis = season.AllFacts(facts...)
	w.Rest(facts...)
	w.Result.Criteria = []solver.Criterion{c}
	return w.Result, nil
}

func init() {
	tracks.Register(tracks.Track{Rules: rules, Criteria: examine, Checks: &lint.Checks{
		Schemas: map[string]lint.Schema{
			toy.Rules: {
				{Name: "ressource", Type: lint.SelfPath},
				{Name: "date_publication", Type: lint.Date},
				{Name: "regles", Type: lint.Entries, Sub: lint.Schema{{Name: "code", Type: lint.Text}, {Name: "regle", Type: lint.Text}}},
			},
			"jouets": {
				{Name: "ressource", Type: lint.SelfPath},
				{Name: "existe", Type: lint.True},
				{Name: "etat", Type: lint.Text, Vocab: []string{"neuf", "use"}},
				{Name: "boite", Type: lint.Ref, Into: "boites"},
			},
			"boites": {
				{Name: "ressource", Type: lint.SelfPath},
				{Name: "existe", Type: lint.True},
				{Name: "etat", Type: lint.Text, Vocab: []string{"intacte", "abimee"}},
			},
		},
		RulesList:   "regles",
		RulesPrefix: "J",
		Task: func(l *lint.Linter, file, at string, task season.Task) {
			l.CheckReference(file, lint.Child(at, "jouet"), toyOf(task), "jouets")
			l.CheckQuestionCites(file, at, task)
		},
	}})
}

// The toy corpus: the rules, three toys (one worn, one whose box answers
// existe: false) and two boxes.
func toyTree(t *testing.T) string {
	t.Helper()
	docs := map[string]string{
		"regles-jouet.json": `{"ressource": "/regles-jouet", "date_publication": "2026-09-01",
			"regles": [{"code": "J1", "regle": "Le jouet existe, il est neuf et sa boite est intacte."}], ` + linttest.Notation(rules) + `}`,
		"jouets/J-1.json": `{"ressource": "/jouets/J-1", "existe": true, "etat": "neuf", "boite": "/boites/B-1"}`,
		"jouets/J-2.json": `{"ressource": "/jouets/J-2", "existe": true, "etat": "use", "boite": "/boites/B-2"}`,
		"jouets/J-3.json": `{"ressource": "/jouets/J-3", "existe": true, "etat": "neuf", "boite": "/boites/B-9"}`,
		"boites/B-1.json": `{"ressource": "/boites/B-1", "existe": true, "etat": "intacte"}`,
		"boites/B-2.json": `{"ressource": "/boites/B-2", "existe": true, "etat": "intacte"}`,
	}
	tree := linttest.WorldOf(t, docs).Tree()
	// The contract's fixed bodies, the same in every track's tree.
	for name, f := range corpustest.Copy(t, corpus.Conformity) {
		if strings.HasPrefix(name, "_systeme/") {
			tree[name] = f
		}
	}
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, tree))
	return root
}

// The three statements, as a file of the toy track.
const statements = `{"saison": "1", "piste": "jouet", "taches": [
	{"id": "jouet-01", "jouet": "/jouets/J-1", "references": [], "assertions_min": 2, "assertions_max": 4, "question": "Le jouet /jouets/J-1 est-il conforme ?"},
	{"id": "jouet-02", "jouet": "/jouets/J-2", "references": [], "assertions_min": 2, "assertions_max": 4, "question": "Le jouet /jouets/J-2 est-il conforme ?"},
	{"id": "jouet-03", "jouet": "/jouets/J-3", "references": [], "assertions_min": 2, "assertions_max": 4, "question": "Le jouet /jouets/J-3 est-il conforme ?"}
]}`

// The authors' design: the control task founded on J1 proven whole, the
// others trapped (P1) and founded on the criterion that decides them.
var design = &season.Design{Track: "jouet", Tasks: []season.DesignTask{
	{ID: "jouet-01", Verdict: compliant, Control: true, Alternatives: [][]season.Place{
		{{Resource: "/jouets/J-1", Field: "/etat"}, {Resource: "/boites/B-1", Field: "/etat"}},
	}},
	{ID: "jouet-02", Verdict: nonCompliant, Families: []string{"P1"}},
	{ID: "jouet-03", Verdict: indeterminable, Families: []string{"P1"}},
}}

func TestAToyTrackGoesThroughEveryStep(t *testing.T) {
	root := toyTree(t)
	tasks, err := season.DecodeTasks("taches-jouet.json", []byte(statements))
	require.NoError(t, err)
	require.Same(t, rules, tasks.Tasks[0].Rules(), "the statements' piste names the toy's rulebook")

	// The manifest, with the box that answers existe: false.
	m, err := manifest.Build(os.DirFS(root), toy.Name, manifest.DefaultOrigin, tasks.Citations())
	require.NoError(t, err)
	manifestFile := filepath.Join(t.TempDir(), "jouet.json")
	require.NoError(t, os.WriteFile(manifestFile, m.Encode(), 0o644))

	// The linter: the tree, its manifest and the statements are clean,
	// and a broken toy is named.
	report := lint.Lint(os.DirFS(root), lint.Options{Track: toy, Manifest: m, ManifestFile: "jouet.json", Tasks: tasks, TasksFile: "taches-jouet.json"})
	assert.Empty(t, linttest.FindingLines(report))
	assert.Equal(t, "OK 10 files (_systeme 4, boites 2, jouets 3, regles-jouet 1); absent references: /boites/B-9; 3 tasks", report.Summary())
	broken := lint.Lint(os.DirFS(root), lint.Options{Track: toy, Tasks: tasks, TasksFile: "taches-jouet.json"})
	assert.Equal(t, []string{`jouets/J-3.json /boite: "/boites/B-9" does not resolve: no file boites/B-9.json (rule: references)`},
		linttest.FindingLines(broken), "without the manifest, the absence is no file")

	// The key the design derives, checked as every track's is.
	fetch := solver.ServeTree(os.DirFS(root))
	key, problems, err := solver.DeriveKey(tasks, design, fetch)
	require.NoError(t, err)
	require.Empty(t, problems)
	results, err := solver.SolveSeason(tasks, fetch)
	require.NoError(t, err)
	problems, err = solver.CheckKey(tasks, key, results, fetch)
	require.NoError(t, err)
	assert.Empty(t, problems)
	for i, want := range []string{compliant, nonCompliant, indeterminable} {
		assert.Equal(t, want, string(results[i].Verdict), tasks.Tasks[i].ID)
		assert.Equal(t, want, key.Tasks[i].Verdict)
	}
	wrong := *design
	wrong.Tasks = slices.Clone(design.Tasks)
	wrong.Tasks[1].Verdict = compliant
	_, problems, err = solver.DeriveKey(tasks, &wrong, fetch)
	require.NoError(t, err)
	assert.NotEmpty(t, problems, "a design the toy corpus does not bear out is refused")

	// The server, in process on a loopback port, serves the toy tree.
	const secret = "toy-track-secret-of-32-bytes-or-more"
	addr := fmt.Sprintf("127.0.0.1:%d", servertest.FreePort(t))
	startServer(t, addr, secret, root, manifestFile)

	// A participant answers every task through it, and the replay scores
	// each verdict exact and founded.
	client, err := probe.NewClient("http://"+addr, 5*time.Second)
	require.NoError(t, err)
	const did = "did:key:z6MkToyParticipant"
	replay, err := score.NewReplay(score.ReplayInput{Tasks: tasks, Key: key, Manifest: m, ManifestSHA256: anchor.SHA256(m.Encode()), Tree: os.DirFS(root)})
	require.NoError(t, err)
	outcomes := map[string]proofs.Outcome{}
	var subs []score.Parsed
	for i, task := range tasks.Tasks {
		relay := participant.NewRelay(client, secret, manifest.DefaultOrigin, fmt.Sprintf("prf_%d", i))
		sub, err := participant.Answer(tasks, task, key.Tasks[i], relay, did)
		require.NoError(t, err, task.ID)
		for _, p := range relay.Proofs() {
			outcomes[p.ID] = proofs.Outcome{Valid: true, AgentDID: did,
				RequestHash: p.Disclosure.RequestHash.Value, ResponseHash: p.Disclosure.ResponseHash.Value}
		}
		data, err := json.Marshal(sub)
		require.NoError(t, err)
		parsed, err := score.ParseSubmission(task.ID+".json", data)
		subs = append(subs, score.Parsed{Submission: parsed, Err: err})
	}
	r, err := replay.Score(subs, score.Given(outcomes))
	require.NoError(t, err)
	require.Len(t, r.Tasks, 3)
	for _, tr := range r.Tasks {
		assert.Equal(t, score.Rendered, tr.Status, tr.TaskID)
		assert.True(t, tr.VerdictExact, tr.TaskID)
		require.NotNil(t, tr.VerdictFounded, tr.TaskID)
		assert.True(t, *tr.VerdictFounded, "%s: %v", tr.TaskID, tr.MissingFacts)
	}
	require.NotNil(t, r.Success.Founded)
	assert.Equal(t, 3, *r.Success.Founded)
	assert.Equal(t, "jouet", r.Track)
}

// startServer runs the corpus server in this process, serving the toy
// track alone, until the test ends.
func startServer(t *testing.T, addr, secret, root, manifestFile string) {
	t.Helper()
	// Caddy keeps its instance id in its data folder: the test's own.
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	config := map[string]any{
		// Nothing of Caddy's outside the test's folders, and only errors
		// logged.
		"admin":   map[string]any{"disabled": true, "config": map[string]any{"persist": false}},
		"storage": map[string]any{"module": "file_system", "root": t.TempDir()},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "ERROR"}}},
		"apps": map[string]any{"http": map[string]any{"servers": map[string]any{"toy": map[string]any{
			"listen":          []string{addr},
			"automatic_https": map[string]any{"disable": true},
			"routes": []any{map[string]any{"handle": []any{map[string]any{
				"handler": "proveit_corpus",
				"secrets": []string{secret},
				"corpora": []any{map[string]any{"track": toy.Name, "root": root, "manifest": manifestFile}},
			}}}},
		}}}},
	}
	data, err := json.Marshal(config)
	require.NoError(t, err)
	require.NoError(t, caddy.Load(data, true))
	t.Cleanup(func() { _ = caddy.Stop() })
	client, err := probe.NewClient("http://"+addr, time.Second)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := client.Do(context.Background(), probe.Request{Method: "GET", Target: toy.Rules})
		return err == nil
	}, 5*time.Second, 20*time.Millisecond, "the server listens on %s", addr)
}
