package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/atomicfile"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// The dress rehearsal (make rehearsal, -rehearse): the demo's start, then
// no players. It prints the steps a participant takes by hand, with this
// machine's URLs and files, and the operator's close, then keeps
// everything up until it is interrupted or its -timeout passes.

// rehearsalWindow is the rehearsal's season, from its opening to its
// closing: time for a person to take every step by hand.
const rehearsalWindow = 30 * time.Minute

// rehearsalAfter is how long the rehearsal stays up after its closing,
// by default: time for the operator's close.
const rehearsalAfter = time.Hour

// batchEvery is how often the rehearsal closes the stand-in's batch, as
// Trust Layer anchors its batches by itself: a proof is anchored within
// seconds of its call.
const batchEvery = 3 * time.Second

// rehearsalEmail is the address the participant's steps sign up with.
const rehearsalEmail = "participant@example.org"

// rehearsal is what the page names: the participant's folder (its calls'
// answers and its submission, nothing secret), the new file its did:key's
// private key goes to (outside every work tree), and the task it answers.
type rehearsal struct {
	*demo
	work, keyFile string
	track         *trackPlay
	deadline      time.Time // when -timeout stops it
	task          string
	resource      string // the corpus resource the participant calls
	member        string // the member of its body the submission asserts
	verdict       string
}

// rehearse starts the season, prints the steps, and keeps everything up
// until ctx ends: an interruption or -timeout is a clean stop, not an
// error.
func rehearse(ctx context.Context, cfg config) error {
	d, err := start(ctx, cfg)
	if err != nil {
		return err
	}
	defer d.stop()
	r, err := newRehearsal(d)
	if err != nil {
		return err
	}
	r.deadline, _ = ctx.Deadline()
	batches := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(batches)
		r.closeBatches(done)
	}()
	defer func() {
		close(done)
		<-batches
	}()

	d.say("The records are anchored; the season opens at %s.", seal.FormatUTC(d.opening))
	if err := sleepUntil(ctx, d.opening); err != nil {
		return r.stopped(ctx, err)
	}
	d.say("%s", r.page())
	closed := time.NewTimer(time.Until(d.closing.Add(time.Second)))
	defer closed.Stop()
	for {
		select {
		case <-ctx.Done():
			return r.stopped(ctx, ctx.Err())
		case <-closed.C:
			d.say("The season closed at %s: the operator's close above may run now.", seal.FormatUTC(d.closing))
		}
	}
}

// stopped ends the rehearsal once ctx is over: an interruption or the
// -timeout is a clean stop, once the server's logs are found to hold no
// secret; any other error is returned.
func (r *rehearsal) stopped(ctx context.Context, err error) error {
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		return err
	}
	why := "interrupted"
	if errors.Is(err, context.DeadlineExceeded) {
		why = fmt.Sprintf("-timeout %s passed", r.cfg.timeout)
	}
	r.say("Stopping (%s): the servers, the stand-in and the rehearsal's private files; %s stays.", why, rel(r.cfg.out))
	return r.checkLogs(nil)
}

// closeBatches anchors the stand-in's pending proofs every batchEvery,
// until done is closed.
func (r *rehearsal) closeBatches(done <-chan struct{}) {
	tick := time.NewTicker(batchEvery)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if r.tl.Pending() > 0 {
				if _, err := r.tl.CloseBatch(); err != nil {
					r.say("The stand-in could not anchor its batch: %v", err)
				}
			}
		}
	}
}

// newRehearsal prepares the participant's side: its folder, emptied, with
// the script that writes its submission; the private folder its key goes
// to, removed at the stop; and the task it answers, the first of the
// first track, with the first probative member of the first resource its
// statement cites.
func newRehearsal(d *demo) (*rehearsal, error) {
	r := &rehearsal{demo: d, work: filepath.Join(d.cfg.out, "participant"), track: d.tracks[0]}
	if err := os.RemoveAll(r.work); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.work, 0o755); err != nil {
		return nil, err
	}
	private, err := os.MkdirTemp("", "proveit-rehearsal-participant-")
	if err != nil {
		return nil, err
	}
	d.onStop(func() { os.RemoveAll(private) })
	r.keyFile = filepath.Join(private, "did.pem")

	track := r.track.track
	tasks, err := season.ReadTasks(filepath.Join(d.cfg.repo, season.TasksFile(track)))
	if err != nil {
		return nil, err
	}
	task := tasks.Tasks[0]
	cited := task.Cited()
	if len(cited) == 0 {
		return nil, fmt.Errorf("%s cites no resource", task.ID)
	}
	r.task, r.resource, r.verdict = task.ID, cited[0], season.RulesOf(track).Verdicts[0]
	if r.member, err = probativeMember(track, r.resource); err != nil {
		return nil, err
	}
	script := fmt.Sprintf(submissionScript, r.task, r.task, seasonNumber, track.Name, r.task, r.verdict, r.resource, r.member, season.Pointer(r.member))
	return r, atomicfile.Replace(filepath.Join(r.work, "soumission.py"), []byte(script), 0o644)
}

// probativeMember is the first member of a resource's body, as the corpus
// serves it, that the track's rules take as a fact and whose value is a
// string, a number or a boolean.
func probativeMember(track *corpus.Track, resource string) (string, error) {
	data, err := fs.ReadFile(track.Embedded(), corpus.FileOf(resource))
	if err != nil {
		return "", err
	}
	doc, err := pyjson.Parse(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", resource, err)
	}
	obj, _ := doc.(pyjson.Object)
	for _, m := range obj {
		switch m.Value.(type) {
		case string, pyjson.Number, bool:
			if season.Probative(resource, season.Pointer(m.Key)) {
				return m.Key, nil
			}
		}
	}
	return "", fmt.Errorf("%s has no probative member", resource)
}

// submissionScript writes the participant's submission from two answers
// of Trust Layer. Filled with: the task twice, the season, the track, the
// task, the verdict, the resource, the member and its pointer.
const submissionScript = `# The submission of %s in the dress rehearsal (make rehearsal), written
# from two answers of Trust Layer: the proxy's (appel.json), which names the
# call's proof and holds the body the corpus served, and the proof's full
# record (preuve.json), which holds the openings of the two hashes the proof
# commits to. A participant's agent writes its own; this one asserts a single
# fact and answers the track's first verdict, to show the format
# (docs/contract.md, section 6), not to answer the task.
#
# Usage: python3 soumission.py DID appel.json preuve.json > %s.json
import json
import sys

SEASON, TRACK, TASK, VERDICT = %d, %q, %q, %q
RESOURCE, MEMBER, FIELD = %q, %q, %q

did = sys.argv[1]
with open(sys.argv[2]) as f:
    call = json.load(f)
with open(sys.argv[3]) as f:
    record = json.load(f)
proof_id = call["proof"]["proof_id"]
served = call["service_response"]["body"]
submission = {
    "season": SEASON,
    "track": TRACK,
    "task_id": TASK,
    "agent_did": did,
    "verdict": VERDICT,
    # The fact as the body served it, citing the proof of the call that served it.
    "assertions": [
        {"id": "a1", "claim": {"resource": RESOURCE, "field": FIELD, "value": served[MEMBER]}, "proof_ids": [proof_id]},
    ],
    # What opens the proof's two hashes, which the replay recomputes.
    "disclosures": {
        proof_id: {h: {"nonce": record["commitment_nonces"][h], "value": record["chain_data"][h]} for h in ("request_hash", "response_hash")},
    },
    "narrative": "Dress rehearsal: one fact read from the corpus through Trust Layer's proxy.",
}
json.dump(submission, sys.stdout, indent=2)
print()
`

// step is one step of the page: what it does and shows, and its commands.
type step struct {
	about    string
	commands []string
}

// participantSteps are a participant's steps by hand, from signing up
// with Trust Layer to an accepted submission. A word in angle brackets is
// the person's to fill in from the output of the first step that names
// it: the member of that name in its JSON answer, or the line proveit
// printed.
func (r *rehearsal) participantSteps() []step {
	tl, service := r.trustLayerURL, r.serviceURL+"/v1/season/"+strconv.Itoa(seasonNumber)
	proveit, key := shellQuote(rel(r.cfg.proveit)), shellQuote(r.keyFile)
	file := func(name string) string { return shellQuote(rel(filepath.Join(r.work, name))) }
	const asJSON = "-H 'Content-Type: application/json'"
	call := file("appel.json")
	record := file("preuve.json")
	submission := file(r.task + ".json")
	answer := file("reponse-" + r.task + ".json")
	receipt := file("recu-" + r.task + ".json")
	return []step{
		{"Sign up with Trust Layer: its answer's api_key is your key, <api_key>.", []string{
			"curl -s -w '\\n' -X POST " + tl + "/v1/keys/free-signup " + asJSON + ` -d '{"email": "` + rehearsalEmail + `"}'`}},
		{"Draw your did:key, its private key into a new file outside the repository: the line printed is your <did>.", []string{
			proveit + " did-key -new " + key}},
		{"Ask Trust Layer to bind <did> to your key: its answer holds a <challenge>, good for five minutes.", []string{
			"curl -s -w '\\n' -X POST " + tl + "/v1/keys/bind-did -H 'X-Api-Key: <api_key>' " + asJSON + ` -d '{"did": "<did>"}'`}},
		{"Sign the challenge with your did:key's private key: the line printed is your <signature>.", []string{
			proveit + " did-key -key " + key + " -sign '<challenge>'"}},
		{"Confirm: Trust Layer checks the signature and binds the DID to your key (verified_did).", []string{
			"curl -s -w '\\n' -X POST " + tl + "/v1/keys/bind-did/confirm -H 'X-Api-Key: <api_key>' " + asJSON +
				` -d '{"challenge": "<challenge>", "signature": "<signature>"}'`}},
		{"Enroll on " + r.track.track.Name + ": the season service asks Trust Layer who your key is; 201, with the statements " +
			"and your season token, jeton, shown once: <jeton>.", []string{
			"curl -s -w '\\n' -X POST " + service + "/enroll -H 'X-Api-Key: <api_key>' " + asJSON +
				` -d '{"piste": "` + r.track.track.Name + `", "agent": "Mon agent", "stack": "à la main, curl", "lien_preuves": "https://example.org/mes-preuves/"}'`}},
		{"Call the corpus for " + r.task + " through Trust Layer's proxy, a GET of " + r.resource + ": the answer, kept, names the call's proof, <proof_id>.", []string{
			"curl -s -w '\\n' -X POST " + tl + "/v1/proxy -H 'X-Api-Key: <api_key>' -H 'X-Agent-Identity: <did>' " + asJSON +
				` -d '{"target": "` + manifest.DefaultOrigin + r.resource + `", "method": "GET", "payload": {}, "amount": 0.0, "currency": "eur"}' | tee ` + call}},
		{"Read the proof's full record, which only your key may: the nonces that open its request_hash and response_hash.", []string{
			"curl -s -H 'X-Api-Key: <api_key>' " + tl + "/v1/proof/<proof_id>/full -o " + record}},
		{"Write the submission of " + r.task + " from those two answers (" + rel(filepath.Join(r.work, "soumission.py")) + ": the value served at " +
			season.Pointer(r.member) + ", its proof cited and disclosed).", []string{
			"python3 " + file("soumission.py") + " '<did>' " + call + " " + record + " > " + submission}},
		{"Submit it with your season token: 200, recorded (enregistree) with a receipt signed by the season's key (recu), kept.", []string{
			"curl -s -w '\\n' -X POST " + service + "/submit -H 'Authorization: Bearer <jeton>' " + asJSON + " --data-binary @" + submission + " | tee " + answer,
			`python3 -c 'import json, sys; json.dump(json.load(sys.stdin)["recu"], sys.stdout)' < ` + answer + " > " + receipt}},
	}
}

// operatorSteps are the close, once the season has closed: the
// timeline's own blocks (docs/operating.md, steps 6 to 8), with the
// rehearsal's values written in: each track exported from the service's
// database with the key and salt the service then publishes, the proofs
// fetched, the Index built and re-derived; then the participant's receipt
// checked against what the close published.
func (r *rehearsal) operatorSteps() []step {
	vars := maps.Clone(r.op.vars)
	if seasonstore.IsPostgres(r.database) {
		vars["DATABASE"] = "<the -database URL>" // never printed: it may hold a password
	}
	block := func(name string, extra map[string]string) []string {
		all := maps.Clone(vars)
		maps.Copy(all, extra)
		return r.commandsOf(name, all)
	}
	var closes []string
	for _, tp := range r.tracks {
		closes = append(closes, block("close", r.trackVars(tp))...)
	}
	proveit := shellQuote(rel(r.cfg.proveit))
	seasonDir := shellQuote(rel(r.season))
	return []step{
		{"Export each track from the season service's database into the season folder, then read its key and salt from the service, which publishes them once the closing has passed.", closes},
		{"Fetch the views of the records' proofs and of every exported submission's from Trust Layer and its Rekor log.", block("fetch", nil)},
		{"Build the Index, then re-derive it cell by cell.", block("index", nil)},
		{"The participant checks its receipt against what the close published, with the season's receipt key (cle_recus).", []string{
			proveit + " receipt -season " + seasonDir + " -key " + r.receiptKey + " " + shellQuote(rel(filepath.Join(r.work, "recu-"+r.task+".json")))}},
	}
}

// quotedWord is a double-quoted word of the timeline's blocks.
var quotedWord = regexp.MustCompile(`"([^"]*)"`)

// commandsOf is a timeline block as commands a person types here: each
// continued line joined, every variable written in with its value (a
// quoted word quoted as this shell needs), and bin/proveit the toolbox
// the rehearsal runs.
func (r *rehearsal) commandsOf(name string, vars map[string]string) []string {
	text := strings.ReplaceAll(r.op.timeline[name], "\\\n", "")
	expand := func(s string) string { return os.Expand(s, func(v string) string { return vars[v] }) }
	var commands []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = quotedWord.ReplaceAllStringFunc(line, func(w string) string { return shellQuote(expand(strings.Trim(w, `"`))) })
		line = strings.Join(strings.Fields(expand(line)), " ")
		if rest, ok := strings.CutPrefix(line, "bin/proveit "); ok {
			line = shellQuote(rel(r.cfg.proveit)) + " " + rest
		}
		commands = append(commands, line)
	}
	return commands
}

// page is what the rehearsal prints once the season is open.
func (r *rehearsal) page() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nThe dress rehearsal is up, on loopback only; the season is open from %s to %s.\n", seal.FormatUTC(r.opening), seal.FormatUTC(r.closing))
	fmt.Fprintf(&b, "  the corpus           %s, reached through Trust Layer's proxy only (%s on %s)\n", manifest.DefaultOrigin, rel(r.cfg.caddy), r.srv.URL)
	fmt.Fprintf(&b, "  Trust Layer          %s, the stand-in; its Rekor log %s\n", r.trustLayerURL, r.rekorURL)
	fmt.Fprintf(&b, "  the season service   %s (%s: %s)\n", r.serviceURL, strings.TrimPrefix(storeKind(r.database), "on "), databaseName(r.database))
	b.WriteString("\nA participant's steps, from this folder, in order (docs/rehearsal.md says what each shows). A word in angle\n" +
		"brackets is yours to fill in from the first step that names it: the member of that name in its JSON answer,\n" +
		"or the line proveit printed.\n\n")
	writeSteps(&b, r.participantSteps())
	fmt.Fprintf(&b, "\nThe operator's close, once the season has closed at %s, from this folder: docs/operating.md's timeline, steps 6 to 8, with this rehearsal's values:\n\n", seal.FormatUTC(r.closing))
	writeSteps(&b, r.operatorSteps())
	until := "Ctrl-C"
	if !r.deadline.IsZero() {
		until += " (or -timeout, at " + seal.FormatUTC(r.deadline.UTC().Truncate(time.Second)) + ")"
	}
	fmt.Fprintf(&b, "\nEverything stays up until %s; the private files in %s go with it.", until, filepath.Dir(r.keyFile)+" and "+r.private)
	return b.String()
}

// databaseName is the database as the page names it: a SQLite file's
// path, never a PostgreSQL URL.
func databaseName(database string) string {
	if seasonstore.IsPostgres(database) {
		return "the -database URL"
	}
	return rel(database)
}

// writeSteps writes numbered steps, each command on its own line,
// indented by four spaces: a command line is nothing but the command.
func writeSteps(b *strings.Builder, steps []step) {
	for i, s := range steps {
		fmt.Fprintf(b, "%d. %s\n", i+1, s.about)
		for _, c := range s.commands {
			fmt.Fprintf(b, "    %s\n", c)
		}
	}
}

// shellQuote is s as one word of a POSIX shell: as it is when every
// character is plain, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
