package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"maps"
	"net/http"
	"os"
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

// player is an enrollment and how it plays: its role in the demo, the
// identity its operator gets from Trust Layer (a key, a did:key bound to
// it), its strategy, and once enrolled, its id and season token. The
// embedded enrollment holds what the operator declares (agent, stack,
// table, a reference run's members) and, once it has them, its DID, key
// and id as the service keeps them.
type player struct {
	index.Enrollment
	role     string // the demo's name for it, in its output and its tests
	strategy strategy
	about    string // what it does, for the demo's output
	// identify gets the player's key and binds its DID, through Trust
	// Layer's own calls.
	identify func(p *play, tp *trackPlay, e *player) error
	// refusedAs is the refusal the season service answers its enrollment
	// with, for a player the demo shows refused.
	refusedAs string

	apiKey string
	didKey ed25519.PrivateKey
	token  string
}

// strategy answers one task through a relay whose proofs commit to did,
// or returns nil to leave the task unanswered.
type strategy func(p *play, i int, relay *participant.Relay, did string) (*score.Submission, error)

// play is one track's season as the players see it: the statements, the
// key the reference solver agrees with, where the corpus and the season
// service are.
type play struct {
	tasks   *season.Tasks
	key     *season.Key
	origin  string
	tl      string // the stand-in's base URL
	client  *http.Client
	service *participant.Season
}

// trustLayer is Trust Layer as the player calls it, with its key.
func (p *play) trustLayer(e *player) *participant.TrustLayer {
	return &participant.TrustLayer{URL: p.tl, APIKey: e.apiKey, AgentDID: e.DID, HTTP: p.client}
}

// players are the season's players on a track, in enrollment order: a
// reference run, a careful participant, one that hurries, one that
// guesses, and the careful participant's operator enrolling a second time
// under another DID: on the conformity track with the very same key, which
// the season service refuses (one enrollment per key and track); on the
// other with a second key first bound to the careful one's DID, which the
// service enrolls and the Index does not rank, the two being one
// participant by their DIDs' history.
func players(track *corpus.Track) []player {
	const carefulStack = "agent outillé, relit chaque réponse avant de l'affirmer"
	list := []player{
		{Enrollment: index.Enrollment{Agent: "Solveur de référence", Table: index.TableReference,
			Stack: "solveur de référence du dépôt, appels par le proxy de Trust Layer",
			ReferenceRun: index.ReferenceRun{Model: ptr("solveur de référence (sans modèle de langage)"), Version: ptr("saison 1"),
				Framework: ptr("harness/participant"), Prompt: ptr("aucun: le solveur lit chaque tâche et suit les règles publiées")}},
			role: "reference", strategy: careful, identify: newIdentity,
			about: "the reference solver, every fact it founds on asserted with its proof; enrolled by the operator (proveit enroll)"},
		{Enrollment: index.Enrollment{Agent: "Prudente", Table: index.TableCommunity, Stack: carefulStack},
			role: "prudente", strategy: careful, identify: newIdentity,
			about: "careful: every call the rules need, every claim read from its answer"},
		{Enrollment: index.Enrollment{Agent: "Pressée", Table: index.TableCommunity, Stack: "agent sans relecture, délai court"},
			role: "pressee", strategy: hurried, identify: newIdentity,
			about: "hurried: three tasks left out, claims assumed rather than read, a disclosure copied wrong"},
		{Enrollment: index.Enrollment{Agent: "Devine", Table: index.TableCommunity, Stack: "réponse unique, une seule consultation par tâche"},
			role: "devine", strategy: guesser, identify: newIdentity,
			about: "guesser: the key's most frequent verdict everywhere, claims on its subject's own sheet only; replaces its first answer"},
		{Enrollment: index.Enrollment{Agent: "Prudente (seconde inscription)", Table: index.TableCommunity, Stack: carefulStack},
			role: "prudente-bis", strategy: careful, identify: secondKey,
			about: "the careful operator again under another DID: on the same key (refused), or a second key first bound to the careful DID"},
	}
	if track == corpus.Conformity {
		list[4].identify, list[4].refusedAs = sameKey, "deja_inscrite"
	}
	for i := range list {
		list[i].ProofsLink = "https://proveit.arkforge.tech/saison-1/" + track.Name + "/soumissions/" + list[i].role + "/"
	}
	return list
}

// newIdentity signs the player up with Trust Layer and binds a new did:key
// to its key.
func newIdentity(p *play, tp *trackPlay, e *player) error {
	var err error
	signup := &participant.TrustLayer{URL: p.tl, HTTP: p.client}
	if e.apiKey, err = signup.SignUp(e.role + "-" + tp.track.Name + "@demo.proveit.test"); err != nil {
		return err
	}
	_, e.didKey = trustlayer.NewDIDKey()
	return e.bind(p, e.didKey)
}

// sameKey is the careful player's operator binding another did:key to the
// careful player's own key.
func sameKey(p *play, tp *trackPlay, e *player) error {
	careful := tp.player("prudente")
	e.apiKey, e.DIDHistory = careful.apiKey, []string{careful.DID}
	_, e.didKey = trustlayer.NewDIDKey()
	return e.bind(p, e.didKey)
}

// secondKey is the careful player's operator signing up again, binding
// the careful DID to the new key first, then a new did:key: the key's
// history holds the careful DID.
func secondKey(p *play, tp *trackPlay, e *player) error {
	careful := tp.player("prudente")
	var err error
	signup := &participant.TrustLayer{URL: p.tl, HTTP: p.client}
	if e.apiKey, err = signup.SignUp(e.role + "-" + tp.track.Name + "@demo.proveit.test"); err != nil {
		return err
	}
	if err := e.bind(p, careful.didKey); err != nil {
		return err
	}
	e.DIDHistory = []string{careful.DID}
	_, e.didKey = trustlayer.NewDIDKey()
	return e.bind(p, e.didKey)
}

// bind binds the did:key of priv to the player's key, by Trust Layer's
// challenge, and makes it the player's DID.
func (e *player) bind(p *play, priv ed25519.PrivateKey) error {
	did, err := p.trustLayer(e).BindDIDKey(priv)
	if err != nil {
		return err
	}
	e.DID = did
	e.Key = anchor.SHA256([]byte(e.apiKey)) // Trust Layer's buyer_fingerprint
	e.DIDHistory = append(slices.DeleteFunc(e.DIDHistory, func(d string) bool { return d == did }), did)
	return nil
}

// playEnrollment plays a player's strategy on every task and submits each
// answer to the season service, keeping each receipt in dir/<task_id>.json.
// The guesser first hands in a draft of its first task, then replaces it;
// the careful player resends its first submission, as a client does after
// a cut, and must get the same receipt back.
func playEnrollment(p *play, e *player, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, task := range p.tasks.Tasks {
		// A relay per task: a proof is cited by one submission only.
		relay := participant.NewProxiedRelay(p.trustLayer(e), p.origin)
		sub, err := e.strategy(p, i, relay, e.DID)
		if err != nil {
			return fmt.Errorf("task %s: %w", task.ID, err)
		}
		if sub == nil {
			continue
		}
		if i == 0 && e.role == "devine" {
			draft := *sub
			draft.Narrative = "Brouillon, remplacé avant la clôture."
			if _, err := submit(p, e, &draft); err != nil {
				return fmt.Errorf("task %s, draft: %w", task.ID, err)
			}
		}
		accepted, err := submit(p, e, sub)
		if err != nil {
			return fmt.Errorf("task %s: %w", task.ID, err)
		}
		if i == 0 && e.role == "prudente" {
			again, err := submit(p, e, sub)
			if err != nil {
				return fmt.Errorf("task %s, sent again: %w", task.ID, err)
			}
			if !bytes.Equal(again.Receipt, accepted.Receipt) {
				return fmt.Errorf("task %s: the same bytes sent again got another receipt", task.ID)
			}
		}
		if err := atomicfile.Replace(filepath.Join(dir, task.ID+".json"), append(accepted.Receipt, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// submit hands a submission in, as the bytes a participant writes.
func submit(p *play, e *player, sub *score.Submission) (*participant.Accepted, error) {
	data, err := json.MarshalIndent(sub, "", "  ")
	if err != nil {
		return nil, err
	}
	return p.service.Submit(e.token, append(data, '\n'))
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
		fmt.Fprintf(&b, "    %-13s %s\n", e.role, e.about)
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
