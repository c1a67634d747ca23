package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/atomicfile"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/tracks/purchasing"
)

// player is an enrollment and how it plays: the API key its operator
// presents to Trust Layer, and its strategy.
type player struct {
	index.Enrollment
	apiKey   string
	strategy strategy
	about    string // what it does, for the demo's output
}

// strategy answers one task through a relay whose proofs commit to did,
// or returns nil to leave the task unanswered.
type strategy func(p *play, i int, relay *participant.Relay, did string) (*score.Submission, error)

// play is one track's season as the players see it: the statements, the
// key the reference solver agrees with, and where the corpus is.
type play struct {
	tasks  *season.Tasks
	key    *season.Key
	origin string
	tl     string // the stand-in's base URL
	client *http.Client
}

// players are the season's players on a track, in enrollment order:
// a reference run, a careful participant, one that hurries, one that
// guesses, and the careful participant's operator enrolled a second time
// under another DID bound to the same key (on the conformity track the
// very same key; on the other, a key whose DID history holds the first
// DID), which only the first enrollment of the two is ranked for.
func players(track *corpus.Track) []player {
	did := func(name string) string { return "did:web:demo.proveit.test:" + track.Name + ":" + name }
	carefulDID, twinDID := did("prudente"), did("prudente-bis")
	carefulKey, twinKey := "demo-key-prudente-"+track.Name, "demo-key-prudente-"+track.Name
	carefulHistory, twinHistory := []string{carefulDID, twinDID}, []string{carefulDID, twinDID}
	if track != corpus.Conformity {
		twinKey, carefulHistory = "demo-key-prudente-bis-"+track.Name, []string{carefulDID}
	}
	const carefulStack = "agent outillé, relit chaque réponse avant de l'affirmer"
	list := []player{
		{Enrollment: index.Enrollment{ID: "reference", Agent: "Solveur de référence", DID: did("reference"), Table: index.TableReference,
			Stack: "solveur de référence du dépôt, appels par le proxy de Trust Layer",
			ReferenceRun: index.ReferenceRun{Model: ptr("solveur de référence (sans modèle de langage)"), Version: ptr("saison 1"),
				Framework: ptr("harness/participant"), Prompt: ptr("aucun: le solveur lit chaque tâche et suit les règles publiées")}},
			apiKey: "demo-key-arkforge-" + track.Name, strategy: careful,
			about: "the reference solver, every fact it founds on asserted with its proof"},
		{Enrollment: index.Enrollment{ID: "prudente", Agent: "Prudente", DID: carefulDID, DIDHistory: carefulHistory, Table: index.TableCommunity,
			Stack: carefulStack},
			apiKey: carefulKey, strategy: careful,
			about: "careful: every call the rules need, every claim read from its answer"},
		{Enrollment: index.Enrollment{ID: "pressee", Agent: "Pressée", DID: did("pressee"), Table: index.TableCommunity,
			Stack: "agent sans relecture, délai court"},
			apiKey: "demo-key-pressee-" + track.Name, strategy: hurried,
			about: "hurried: three tasks left out, claims assumed rather than read, a disclosure copied wrong"},
		{Enrollment: index.Enrollment{ID: "devine", Agent: "Devine", DID: did("devine"), Table: index.TableCommunity,
			Stack: "réponse unique, une seule consultation par tâche"},
			apiKey: "demo-key-devine-" + track.Name, strategy: guesser,
			about: "guesser: the key's most frequent verdict everywhere, claims on its subject's own sheet only"},
		{Enrollment: index.Enrollment{ID: "prudente-bis", Agent: "Prudente (seconde inscription)", DID: twinDID, DIDHistory: twinHistory, Table: index.TableCommunity,
			Stack: carefulStack},
			apiKey: twinKey, strategy: careful,
			about: "the careful operator again, another DID bound to the same key"},
	}
	for i := range list {
		e := &list[i]
		e.Key = anchor.SHA256([]byte(e.apiKey)) // Trust Layer's buyer_fingerprint
		if e.DIDHistory == nil {
			e.DIDHistory = []string{e.DID}
		}
		e.ProofsLink = "https://proveit.arkforge.tech/saison-1/" + track.Name + "/soumissions/" + e.ID + "/"
	}
	return list
}

// playEnrollment plays a player's strategy on every task and writes
// its submissions to dir/<task_id>.json; it returns the files written.
func playEnrollment(p *play, e *player, dir string) ([]string, error) {
	var files []string
	for i, task := range p.tasks.Tasks {
		// A relay per task: a proof is cited by one submission only.
		relay := participant.NewProxiedRelay(&participant.TrustLayer{URL: p.tl, APIKey: e.apiKey, AgentDID: e.DID, HTTP: p.client}, p.origin)
		sub, err := e.strategy(p, i, relay, e.DID)
		if err != nil {
			return nil, fmt.Errorf("%s, task %s: %w", e.ID, task.ID, err)
		}
		if sub == nil {
			continue
		}
		data, err := json.MarshalIndent(sub, "", "  ")
		if err != nil {
			return nil, err
		}
		file := filepath.Join(dir, task.ID+".json")
		if err := atomicfile.Replace(file, append(data, '\n'), 0o644); err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	return files, nil
}

// careful answers as the reference participant does: the solver's
// verdict, founded on facts each read from the body its proof attests.
func careful(p *play, i int, relay *participant.Relay, did string) (*score.Submission, error) {
	sub, err := participant.Answer(p.tasks, p.tasks.Tasks[i], p.key.Tasks[i], relay, did)
	if err != nil {
		return nil, err
	}
	sub.Narrative = fmt.Sprintf("Chaque fait retenu a été lu dans la réponse du corpus que sa preuve atteste (%d appels).", len(relay.Proofs()))
	return sub, nil
}

// hurried answers all tasks but the last three as the careful participant
// would, then spoils what haste spoils: on every other task it writes the
// last claim's value as it expected it rather than as it was served; on
// the second task it cites, for a claim, the proof of a call to another
// resource;
// on the fourth it copies one nonce of a disclosure into the other.
func hurried(p *play, i int, relay *participant.Relay, did string) (*score.Submission, error) {
	if i >= len(p.tasks.Tasks)-3 {
		return nil, nil
	}
	sub, err := participant.Answer(p.tasks, p.tasks.Tasks[i], p.key.Tasks[i], relay, did)
	if err != nil {
		return nil, err
	}
	sub.Narrative = "Réponse rapide: certaines valeurs sont reprises de mémoire."
	last := &sub.Assertions[len(sub.Assertions)-1]
	switch {
	case i == 1:
		// The first claim's proof, for a claim on another resource.
		first := sub.Assertions[0]
		for j := range sub.Assertions {
			if sub.Assertions[j].Claim.Resource != first.Claim.Resource {
				sub.Assertions[j].ProofIDs = slices.Clone(first.ProofIDs)
				break
			}
		}
		cited := map[string]bool{}
		for _, a := range sub.Assertions {
			for _, id := range a.ProofIDs {
				cited[id] = true
			}
		}
		for id := range maps.Keys(sub.Disclosures) {
			if !cited[id] {
				delete(sub.Disclosures, id)
			}
		}
	case i == 3:
		id := last.ProofIDs[0]
		d := sub.Disclosures[id]
		d.ResponseHash.Nonce = d.RequestHash.Nonce
		sub.Disclosures[id] = d
	case i%2 == 0:
		for j := len(sub.Assertions) - 1; j >= 0; j-- {
			if assumed, ok := assumedValue(sub.Assertions[j].Claim.Value); ok {
				sub.Assertions[j].Claim.Value = assumed
				break
			}
		}
	}
	return sub, nil
}

// assumedValue is a value one expects rather than reads: the other
// boolean, a date a year later, another status. ok is false for a value
// one would not guess (an array, an object, null).
func assumedValue(raw json.RawMessage) (json.RawMessage, bool) {
	v, err := pyjson.Parse(raw)
	if err != nil {
		return nil, false
	}
	switch v := v.(type) {
	case bool:
		return pyjson.Canonical(!v), true
	case string:
		if t, err := time.Parse(time.DateOnly, v); err == nil {
			return pyjson.Canonical(t.AddDate(1, 0, 0).Format(time.DateOnly)), true
		}
		if v == "valide" {
			return pyjson.Canonical("actif"), true
		}
		return pyjson.Canonical("valide"), true
	}
	return nil, false
}

// guesser answers every task with the key's most frequent verdict, after
// one call: its subject's own sheet (the entity, or the product the client
// named), whose probative members it asserts up to the task's minimum,
// each as served. Its claims are supported; its verdicts are guesses.
func guesser(p *play, i int, relay *participant.Relay, did string) (*score.Submission, error) {
	task := p.tasks.Tasks[i]
	subject, err := subjectOf(task, relay)
	if err != nil {
		return nil, err
	}
	proof, err := relay.Call(subject)
	if err != nil {
		return nil, err
	}
	doc, err := pyjson.Parse(proof.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", subject, err)
	}
	obj, _ := doc.(pyjson.Object)
	sub := &score.Submission{
		Season: json.Number(p.tasks.Season), Track: p.tasks.Track, TaskID: task.ID, AgentDID: did,
		Verdict:     mostFrequentVerdict(p.key),
		Disclosures: map[string]proofs.Disclosure{proof.ID: proof.Disclosure},
		Narrative:   "Verdict le plus fréquent, appuyé sur la seule fiche du sujet de la tâche.",
	}
	for _, m := range obj {
		field := season.Pointer(m.Key)
		if len(sub.Assertions) == task.AssertionsMin || !season.Probative(subject, field) {
			continue
		}
		sub.Assertions = append(sub.Assertions, score.Assertion{
			ID:       fmt.Sprintf("a%d", len(sub.Assertions)+1),
			Claim:    season.Fact{Resource: subject, Field: field, Value: pyjson.Canonical(m.Value)},
			ProofIDs: []string{proof.ID},
		})
	}
	return sub, nil
}

// subjectOf is the sheet a task is about: the first path its statement
// cites (the entity, or the product the client named) or, for a purchase
// that names none, the first product its category's catalogue lists, read
// through the relay from the rules resource's link to that catalogue.
func subjectOf(task season.Task, relay *participant.Relay) (string, error) {
	if cited := task.Cited(); len(cited) > 0 {
		return cited[0], nil
	}
	need, ok := task.Own.(*purchasing.Need)
	if !ok {
		return "", fmt.Errorf("%s cites no path", task.ID)
	}
	rulesPath := task.Rules().Track.Rules
	body, err := relay.Fetch(rulesPath)
	if err != nil {
		return "", err
	}
	rules, err := pyjson.Parse(body)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rulesPath, err)
	}
	catalogue, err := season.StringAt(rules, rulesPath, season.Pointer("catalogues", need.Category))
	if err != nil {
		return "", err
	}
	if body, err = relay.Fetch(catalogue); err != nil {
		return "", err
	}
	page, err := pyjson.Parse(body)
	if err != nil {
		return "", fmt.Errorf("%s: %w", catalogue, err)
	}
	return season.StringAt(page, catalogue, "/entrees/0/produit")
}

// mostFrequentVerdict is the guess that pays best without a call: the
// key's most frequent verdict, the first in order on a tie, the answer of
// the Index's constant-best-answer row.
func mostFrequentVerdict(key *season.Key) string {
	counts := map[string]int{}
	for _, k := range key.Tasks {
		counts[k.Verdict]++
	}
	best := ""
	for _, v := range slices.Sorted(maps.Keys(counts)) {
		if counts[v] > counts[best] {
			best = v
		}
	}
	return best
}

// describe lists a track's players for the demo's output.
func describe(list []player) string {
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "    %-13s %s\n", e.ID, e.about)
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
