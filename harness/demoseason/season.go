package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/atomicfile"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// defaultWindow is the season's length: time enough for the play on a
// loaded two-core machine, which takes a few seconds, and not so much that
// waiting for the closing makes the demo slow.
const defaultWindow = 20 * time.Second

// Where the record is served and who anchors it: the season service's
// site, relayed by the stand-in to the season service on loopback, which
// publishes each record at /v1/season/1/<track>/preenregistrement.json.
const (
	serviceOrigin = "https://proveit.arkforge.tech"
	recordAPIKey  = "demo-key-arkforge-record"
	recordDID     = "did:web:proveit.arkforge.tech"
	seasonNumber  = 1
)

// config is the demo's flags.
type config struct {
	repo, out, caddy, proveit string
	// database is the season service's: a SQLite file (default
	// <out>/server/season.db) or a PostgreSQL URL.
	database        string
	window, timeout time.Duration
	stdout          io.Writer
}

// demo is a season played: where everything is, and each track's.
type demo struct {
	cfg                     config
	season, site, recordDir string
	// trust is the stand-in's trust material: beside the season, never in
	// it, since a reader trusts only the material it names.
	trust string
	// receipts holds what each player kept of its submissions' receipts,
	// by track and player; private, what the season service reads and
	// the players' tokens, outside every work tree, removed at the end.
	receipts, private       string
	database                string
	opening, closing        time.Time
	trustLayerURL, rekorURL string
	serviceURL              string
	receiptKey              string // cle_recus, as the service publishes it
	tracks                  []*trackPlay

	// op runs the operator's steps, docs/operating.md's timeline.
	op *operator

	// What start started, for the run and for stop.
	serverDir string
	srv       *servertest.Server
	secret    string // the corpus's challenge secret, hex
	tl        *trustlayer.TrustLayer
	stops     []func()
}

// trackPlay is one track's season: its players, the refusals the service
// answered some, and its record's proof.
type trackPlay struct {
	track       *corpus.Track
	players     []player
	refused     map[string]*participant.Refusal // by player role
	recordProof string
	recordURL   string
}

// enrolled are the players the service enrolled, in enrollment order.
func (tp *trackPlay) enrolled() []*player {
	var list []*player
	for i := range tp.players {
		if tp.players[i].ID != "" {
			list = append(list, &tp.players[i])
		}
	}
	return list
}

// player is the track's player of a role.
func (tp *trackPlay) player(role string) *player {
	for i := range tp.players {
		if tp.players[i].role == role {
			return &tp.players[i]
		}
	}
	return nil
}

// dir is the track's folder in the season.
func (d *demo) dir(tp *trackPlay) string { return filepath.Join(d.season, tp.track.Name) }

// playSeason plays the season up to the views fetched and each record's
// proof verified: everything the Index is built from.
func playSeason(ctx context.Context, cfg config) (*demo, error) {
	d, err := start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer d.stop()
	if err := sleepUntil(ctx, d.opening); err != nil {
		return nil, err
	}
	// The season's state, as the operator watches it: open.
	if state, err := d.op.run(ctx, "watch", nil); err != nil {
		return nil, err
	} else if !strings.Contains(state, `"ouverte":true`) {
		return nil, fmt.Errorf("the season service says the season is not open at its opening: %s", state)
	}

	d.say("The season is open, %s to %s. Each player signs up with Trust Layer, binds a did:key, enrolls with the season service and submits to it; on each track:\n%s",
		seal.FormatUTC(d.opening), seal.FormatUTC(d.closing), strings.TrimSuffix(describe(d.tracks[0].players), "\n"))
	client := &http.Client{Timeout: 30 * time.Second}
	started := time.Now()
	// The tracks play side by side, each player after the other.
	errs := make([]error, len(d.tracks))
	var wg sync.WaitGroup
	for i, tp := range d.tracks {
		wg.Go(func() { errs[i] = d.playTrack(ctx, tp, client) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	d.say("Played in %.1f s, %d proofs issued.", time.Since(started).Seconds(), d.tl.Pending())
	for _, tp := range d.tracks {
		for role, refusal := range tp.refused {
			d.say("On %s, the season service refused %s: %d %s.", tp.track.Name, role, refusal.Status, refusal.Code)
		}
	}
	if _, err := d.tl.CloseBatch(); err != nil {
		return nil, err
	}
	if ended := time.Now().UTC().Truncate(time.Second); ended.After(d.closing) {
		return nil, fmt.Errorf("the play ended at %s, after the season's closing %s: give it a longer -window than %s", seal.FormatUTC(ended), seal.FormatUTC(d.closing), cfg.window)
	}
	d.say("Every batch is anchored; waiting for the closing, %s.", seal.FormatUTC(d.closing))
	if err := sleepUntil(ctx, d.closing.Add(time.Second)); err != nil {
		return nil, err
	}

	for _, tp := range d.tracks {
		if err := d.close(ctx, tp); err != nil {
			return nil, err
		}
	}
	if err := d.fetch(ctx); err != nil {
		return nil, err
	}
	for _, tp := range d.tracks {
		if err := d.verifyRecord(ctx, tp); err != nil {
			return nil, err
		}
	}
	keys := map[string]string{}
	for _, tp := range d.tracks {
		for _, p := range tp.players {
			keys[p.role+" on "+tp.track.Name] = p.apiKey
		}
	}
	if err := d.checkLogs(keys); err != nil {
		return nil, err
	}
	return d, nil
}

// startLead is how long before the opening the records are sealed: time
// to start the services and anchor the records, whose proofs must be
// dated no later than the opening. A machine that needs longer starts
// again with twice as long, up to startAttempts times.
const (
	startLead     = 5 * time.Second
	startAttempts = 5
)

// errLate is a start whose records were anchored after the opening they
// were sealed with.
var errLate = errors.New("the records were anchored after the season's opening")

// start brings up what a season runs on, as make demo and make rehearsal
// share it: the out folders emptied, each track's record sealed for a
// window opening startLead from now, the season service's files, bin/caddy
// serving the corpus and the season service from the repository's
// Caddyfile, the Trust Layer stand-in and its Rekor log, each record
// anchored through the stand-in before the opening, and the stand-in's
// trust material written; all on loopback. The caller stops it all with
// d.stop.
func start(ctx context.Context, cfg config) (*demo, error) {
	lead := startLead
	for attempt := 1; ; attempt++ {
		d, err := startOnce(ctx, cfg, lead)
		switch {
		case err == nil:
			return d, nil
		case !errors.Is(err, errLate):
			return nil, err
		case attempt == startAttempts:
			return nil, fmt.Errorf("%w: the machine is too slow for the run's timing", err)
		}
		lead *= 2
		d.say("%v: starting again, with %s between the seal and the opening.", err, lead)
	}
}

// startOnce is one try of start. On an error, what it started is stopped
// and d is left for its say alone.
func startOnce(ctx context.Context, cfg config, lead time.Duration) (d *demo, err error) {
	for _, p := range []*string{&cfg.repo, &cfg.out, &cfg.caddy, &cfg.proveit} {
		if *p, err = filepath.Abs(*p); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.repo, "go.mod")); err != nil {
		return nil, fmt.Errorf("-repo %s is not the repository's root (no go.mod): run make demo there", cfg.repo)
	}
	for _, bin := range []string{cfg.caddy, cfg.proveit} {
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("%w: make build first", err)
		}
	}
	d = &demo{cfg: cfg, season: filepath.Join(cfg.out, "season"), site: filepath.Join(cfg.out, "site"), recordDir: filepath.Join(cfg.out, "record"),
		trust: filepath.Join(cfg.out, "trust"), receipts: filepath.Join(cfg.out, "receipts"), serverDir: filepath.Join(cfg.out, "server")}
	defer func() {
		if err != nil {
			d.stop()
		}
	}()
	for _, dir := range []string{d.season, d.site, d.recordDir, d.trust, d.receipts, d.serverDir} {
		if err := os.RemoveAll(dir); err != nil {
			return d, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return d, err
		}
	}
	d.database = cfg.database
	if d.database == "" {
		d.database = filepath.Join(d.serverDir, "season.db")
	}
	// The season service's private files (its receipt key, the salts it
	// publishes after the close) and the players' tokens stay outside
	// every work tree.
	if d.private, err = os.MkdirTemp("", "proveit-demo-private-"); err != nil {
		return d, err
	}
	d.onStop(func() { os.RemoveAll(d.private) })

	api, err := listen()
	if err != nil {
		return d, err
	}
	d.onStop(func() { api.Close() })
	rekor, err := listen()
	if err != nil {
		return d, err
	}
	d.onStop(func() { rekor.Close() })
	d.trustLayerURL, d.rekorURL = "http://"+api.Addr().String(), "http://"+rekor.Addr().String()

	servicePort, err := servertest.PickPort()
	if err != nil {
		return d, err
	}
	d.serviceURL = "http://127.0.0.1:" + strconv.Itoa(servicePort)

	d.opening = time.Now().UTC().Truncate(time.Second).Add(lead)
	d.closing = d.opening.Add(cfg.window)
	if d.op, err = d.newOperator(); err != nil {
		return d, err
	}
	for _, track := range corpus.Tracks {
		tp := &trackPlay{track: track, players: players(track), refused: map[string]*participant.Refusal{}}
		d.tracks = append(d.tracks, tp)
		if err := d.seal(ctx, tp); err != nil {
			return d, err
		}
	}
	if err := d.writeServiceFiles(ctx); err != nil {
		return d, err
	}

	secret := make([]byte, 32)
	rand.Read(secret)
	d.secret = hex.EncodeToString(secret)
	d.say("Starting the corpus server and the season service (%s, %s) on loopback...", rel(cfg.caddy), storeKind(d.database))
	// The server outlives the run's own deadline by a minute, so that the
	// run, not the server's lifetime, is what stops it.
	d.srv, err = servertest.Launch(servertest.Options{Binary: cfg.caddy, Dir: d.serverDir, Secrets: []string{d.secret},
		Caddyfile: filepath.Join(cfg.repo, "Caddyfile"), Lifetime: cfg.timeout + time.Minute, Env: d.serviceEnv(servicePort)})
	if d.srv != nil {
		d.onStop(d.srv.Stop)
	}
	if err != nil {
		return d, err
	}

	d.tl, err = trustlayer.New(trustlayer.Options{
		BaseURL: d.trustLayerURL, RekorURL: d.rekorURL,
		Upstreams: map[string]trustlayer.Upstream{
			manifest.DefaultOrigin: {URL: d.srv.URL, Secret: d.secret},
			serviceOrigin:          {URL: d.serviceURL},
		},
		// The run closes the batches: the records' before the opening,
		// the demo's players' once the play is over, the rehearsal's
		// every few seconds.
		BatchMaxSize: -1,
		// Every player signs up from loopback.
		FreeSignupsPerHour: -1,
	})
	if err != nil {
		return d, err
	}
	// The challenge's key, as Trust Layer knows it: bound to ArkForge's
	// DID, which every proof it pays for then carries.
	d.tl.RegisterKey(recordAPIKey)
	if err := d.tl.BindDID(recordAPIKey, recordDID, trustlayer.MethodOATR); err != nil {
		return d, err
	}
	d.onStop(serveOn(api, d.tl.Handler()))
	d.onStop(serveOn(rekor, d.tl.RekorHandler()))
	d.say("Trust Layer stand-in on %s, its Rekor log on %s; the season service on %s.", d.trustLayerURL, d.rekorURL, d.serviceURL)
	if err := d.writeTrust(d.tl); err != nil {
		return d, err
	}
	out, err := d.op.run(ctx, "keys", nil)
	if err != nil {
		return d, err
	}
	d.say("%s", strings.TrimSpace(out))

	for _, tp := range d.tracks {
		if err := d.anchor(ctx, tp); err != nil {
			return d, err
		}
	}
	if _, err := d.tl.CloseBatch(); err != nil {
		return d, err
	}
	if anchored := time.Now().UTC().Truncate(time.Second); anchored.After(d.opening) {
		return d, fmt.Errorf("%w: anchored at %s, the opening %s", errLate, seal.FormatUTC(anchored), seal.FormatUTC(d.opening))
	}
	// Each record's proof, its batch anchored: the TSA it was stamped by
	// is one the trust material pins.
	for _, tp := range d.tracks {
		if _, err := d.op.run(ctx, "record-proof", d.trackVars(tp)); err != nil {
			return d, err
		}
	}
	return d, nil
}

// newOperator sets the timeline's variables to the run's own values.
func (d *demo) newOperator() (*operator, error) {
	salts := filepath.Join(d.private, "salts")
	if err := os.MkdirAll(salts, 0o700); err != nil {
		return nil, err
	}
	challengeKey := filepath.Join(d.private, "challenge.key")
	if err := os.WriteFile(challengeKey, []byte(recordAPIKey+"\n"), 0o600); err != nil {
		return nil, err
	}
	season := "/v1/season/" + strconv.Itoa(seasonNumber)
	return newOperator(d.cfg.repo, d.cfg.proveit, filepath.Join(d.cfg.out, "operator"), map[string]string{
		"OPENING": seal.FormatUTC(d.opening), "CLOSING": seal.FormatUTC(d.closing),
		"SALTS": salts, "SEASON_DIR": d.private, "DATABASE": d.database, "CHALLENGE_KEY": challengeKey,
		"PUBLIC": serviceOrigin + season, "SERVICE": d.serviceURL + season,
		"TRUST_LAYER": d.trustLayerURL, "REKOR": d.rekorURL, "TRUST": d.trust, "OUT": d.season, "SITE": d.site,
	})
}

// trackVars are the timeline's variables of one track.
func (d *demo) trackVars(tp *trackPlay) map[string]string {
	return map[string]string{
		"TRACK":      tp.track.Name,
		"RECORD":     d.record(tp),
		"SECTION":    filepath.Join(d.cfg.repo, season.ScoringSectionFile(tp.track)),
		"ANSWER_KEY": filepath.Join(d.cfg.repo, season.KeyFile(tp.track)),
	}
}

// record is where the run seals a track's record, as the repository holds
// its own: the season service publishes it, the timeline copies it into
// the season folder.
func (d *demo) record(tp *trackPlay) string {
	return filepath.Join(d.recordDir, tp.track.Name, "preenregistrement.json")
}

// onStop adds to what stop undoes, which it does last first.
func (d *demo) onStop(f func()) { d.stops = append(d.stops, f) }

// stop ends what start started, the last started first: the stand-in's
// listeners, the server, and the private files; once.
func (d *demo) stop() {
	for i := len(d.stops) - 1; i >= 0; i-- {
		d.stops[i]()
	}
	d.stops = nil
}

// checkLogs holds the server's logs to the secrets they must never hold:
// the corpus's challenge secret, and the players' Trust Layer keys, by
// player.
func (d *demo) checkLogs(apiKeys map[string]string) error {
	logs := d.srv.Output()
	for _, file := range []string{d.srv.TelemetryLog(), d.srv.AccessLog()} {
		data, err := os.ReadFile(file)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		logs += string(data)
	}
	if strings.Contains(logs, d.secret) {
		return errors.New("a log of the corpus server holds its secret")
	}
	for who, key := range apiKeys {
		if key != "" && strings.Contains(logs, key) {
			return fmt.Errorf("a log of the season service holds %s's Trust Layer key", who)
		}
	}
	return nil
}

// storeKind names the season service's database for the demo's output,
// never its URL, which may hold a password.
func storeKind(database string) string {
	if seasonstore.IsPostgres(database) {
		return "on PostgreSQL"
	}
	return "on SQLite"
}

// serviceEnv is what the repository's Caddyfile needs to serve the
// season service beside the corpus: its port, its database, the stand-in
// it asks who a key is, its files and the demo's records.
func (d *demo) serviceEnv(port int) map[string]string {
	env := map[string]string{
		"SEASON_SERVICE":     "on",
		"SEASON_SITE":        "http://:" + strconv.Itoa(port),
		"SEASON_DATABASE":    d.database,
		"SEASON_TRUST_LAYER": d.trustLayerURL,
		"SEASON_DIR":         d.private,
	}
	for _, tp := range d.tracks {
		env["SEASON_"+strings.ToUpper(tp.track.Name)+"_RECORD"] = d.record(tp)
	}
	return env
}

// seal seals a track's record for the run's window, with the timeline's
// command; the salt stays in the private salts folder.
func (d *demo) seal(ctx context.Context, tp *trackPlay) error {
	if err := os.MkdirAll(filepath.Dir(d.record(tp)), 0o755); err != nil {
		return err
	}
	_, err := d.op.run(ctx, "seal", d.trackVars(tp))
	return err
}

// writeServiceFiles writes what the season service reads from SEASON_DIR,
// with the timeline's commands: the receipt key, and each track's files.
func (d *demo) writeServiceFiles(ctx context.Context) error {
	if _, err := d.op.run(ctx, "receipt-key", nil); err != nil {
		return err
	}
	key, err := seasonservice.ReadReceiptKey(filepath.Join(d.private, "receipt.key"))
	if err != nil {
		return err
	}
	d.receiptKey = base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))
	for _, tp := range d.tracks {
		if _, err := d.op.run(ctx, "service-files", d.trackVars(tp)); err != nil {
			return err
		}
	}
	return nil
}

// anchor anchors a track's record as the season's operator does, with
// the timeline's command: a GET of the record's URL on the season service,
// through Trust Layer's proxy, before the opening, its proof and
// disclosure written beside the record in the season folder.
func (d *demo) anchor(ctx context.Context, tp *trackPlay) error {
	if _, err := d.op.run(ctx, "anchor", d.trackVars(tp)); err != nil {
		// proveit anchor refuses a proof dated after the opening: on a
		// loaded machine, the seal's lead was too short, not the run wrong.
		if time.Now().After(d.opening) {
			return fmt.Errorf("%w: %w", errLate, err)
		}
		return err
	}
	file := filepath.Join(d.dir(tp), seal.AnchoringFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	anchoring, err := seal.DecodeAnchoring(file, data)
	if err != nil {
		return err
	}
	tp.recordProof, tp.recordURL = anchoring.ProofID, anchoring.RecordURL
	d.say("Sealed %s and anchored it through the stand-in, a GET of %s: %s.", rel(d.record(tp)), tp.recordURL, anchoring.ProofID)
	return nil
}

// playTrack plays each of a track's players in order: it gets its
// identity, enrolls, answers and submits.
func (d *demo) playTrack(ctx context.Context, tp *trackPlay, client *http.Client) error {
	p := &play{origin: manifest.DefaultOrigin, tl: d.trustLayerURL, client: client,
		service: &participant.Season{URL: d.serviceURL, Number: seasonNumber, HTTP: client}}
	var err error
	if p.tasks, err = season.ReadTasks(filepath.Join(d.cfg.repo, season.TasksFile(tp.track))); err != nil {
		return err
	}
	if p.key, err = season.ReadKey(filepath.Join(d.cfg.repo, season.KeyFile(tp.track))); err != nil {
		return err
	}
	for i := range tp.players {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := &tp.players[i]
		refusal, err := d.enroll(p, tp, e)
		if err != nil {
			return fmt.Errorf("%s, %s: %w", tp.track.Name, e.role, err)
		}
		if refusal != nil {
			tp.refused[e.role] = refusal
			continue
		}
		if err := playEnrollment(p, e, filepath.Join(d.receipts, tp.track.Name, e.role)); err != nil {
			return fmt.Errorf("%s, %s: %w", tp.track.Name, e.role, err)
		}
	}
	return nil
}

// enroll gives a player its Trust Layer key and DID and enrolls it: a
// community player with the season service, with its key; the reference
// run on the service's database, by the operator, with proveit enroll. A
// refusal the service answers is returned, not an error: the demo plays
// one.
func (d *demo) enroll(p *play, tp *trackPlay, e *player) (*participant.Refusal, error) {
	if err := e.identify(p, tp, e); err != nil {
		return nil, err
	}
	if e.Table == index.TableReference {
		return nil, d.enrollReference(tp, e)
	}
	enrolled, err := p.service.Enroll(e.apiKey, tp.track.Name, e.Agent, e.Stack, e.ProofsLink)
	var refusal *participant.Refusal
	if errors.As(err, &refusal) && e.refusedAs != "" {
		if refusal.Code != e.refusedAs {
			return nil, fmt.Errorf("refused %s, not %s: %w", refusal.Code, e.refusedAs, err)
		}
		return refusal, nil
	}
	if err != nil {
		return nil, err
	}
	if e.refusedAs != "" {
		return nil, fmt.Errorf("enrolled as %s where the service should refuse it (%s)", enrolled.ID, e.refusedAs)
	}
	if enrolled.DID != e.DID {
		return nil, fmt.Errorf("enrolled under %s, not the DID bound to its key, %s", enrolled.DID, e.DID)
	}
	e.ID, e.token = enrolled.ID, enrolled.Token
	return nil, nil
}

// enrollReference enrolls the reference run as the operator does, with
// proveit enroll on the service's database.
func (d *demo) enrollReference(tp *trackPlay, e *player) error {
	entry := map[string]any{"agent": e.Agent, "did": e.DID, "cle": anchor.SHA256([]byte(e.apiKey)), "historique_did": e.DIDHistory,
		"stack": e.Stack, "lien_preuves": e.ProofsLink, "modele": e.Model, "version": e.Version, "framework": e.Framework, "prompt": e.Prompt}
	data, err := json.MarshalIndent(entry, "", "  ")
	if err != nil {
		return err
	}
	file := filepath.Join(d.private, tp.track.Name+"-reference.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return err
	}
	// The timeline's command: the id reference-<track> (enrollment ids are
	// the season's, across its tracks), the token in the salts folder.
	vars := d.trackVars(tp)
	vars["REFERENCE_ENTRY"] = file
	if _, err := d.op.run(context.Background(), "enroll-reference", vars); err != nil {
		return err
	}
	id := "reference-" + tp.track.Name
	token, err := os.ReadFile(filepath.Join(d.private, "salts", "reference-"+tp.track.Name+".token"))
	if err != nil {
		return err
	}
	e.ID, e.token = id, strings.TrimSpace(string(token))
	return nil
}

// writeTrust writes the stand-in's trust material where a verifier of the
// season reads it, with a note saying what it is.
func (d *demo) writeTrust(tl *trustlayer.TrustLayer) error {
	dir := d.trust
	if err := tl.WriteTrust(dir); err != nil {
		return err
	}
	note := "# Trust material of a demo season\n\n" +
		"The keys of the Trust Layer stand-in (harness/trustlayer), its test TSA and its test Rekor log,\n" +
		"made up in memory for one run of `make demo` and never ArkForge's, FreeTSA's or Sigstore's:\n" +
		"they verify this season's proofs and nothing else. The layout is tools/proofs/trust's.\n"
	return atomicfile.Replace(filepath.Join(dir, "PROVENANCE.md"), []byte(note), 0o644)
}

// close hands a track over as a season's close does, with the timeline's
// commands: proveit close exports it from the season service's database
// into the season folder, then the key and the salt are read from the
// service, which publishes them once the record's cloture has passed.
func (d *demo) close(ctx context.Context, tp *trackPlay) error {
	out, err := d.op.run(ctx, "close", d.trackVars(tp))
	if err != nil {
		return err
	}
	d.say("%s", strings.TrimSpace(out))
	return nil
}

// fetch reads every cited proof's view and its batch's Rekor entry from
// the stand-in into the season's views folder, with the timeline's
// command; none may be pending.
func (d *demo) fetch(ctx context.Context) error {
	out, err := d.op.run(ctx, "fetch", nil)
	if err != nil {
		return err
	}
	if strings.Contains(out, "PENDING") {
		return fmt.Errorf("proofs fetch left proofs pending:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	d.say("Fetched the views: %s", lines[len(lines)-1])
	return nil
}

// verifyRecord checks a track's record as anyone can, with the
// timeline's command: the files and the revealed salt open it, and its
// proof anchors its bytes before the opening.
func (d *demo) verifyRecord(ctx context.Context, tp *trackPlay) error {
	out, err := d.op.run(ctx, "verify-record", d.trackVars(tp))
	if err != nil {
		return err
	}
	d.say("%s", strings.TrimSpace(out))
	return nil
}

// publish builds the Index from the season folder, re-derives it, and
// prints its path.
func (d *demo) publish(ctx context.Context) error {
	out, err := d.op.run(ctx, "index", nil)
	if err != nil {
		return err
	}
	if out = strings.TrimSpace(out); out != "" {
		d.say("%s", out)
	}
	// Each player checks what it kept against the folder the close
	// published, with the key the service announced.
	for _, tp := range d.tracks {
		for _, e := range tp.enrolled() {
			kept, err := filepath.Glob(filepath.Join(d.receipts, tp.track.Name, e.role, "*.json"))
			if err != nil {
				return err
			}
			if _, err := d.proveit(ctx, append([]string{"receipt", "-season", d.season, "-key", d.receiptKey}, kept...)...); err != nil {
				return fmt.Errorf("%s's receipts on %s: %w", e.role, tp.track.Name, err)
			}
		}
	}
	d.say("Every player's receipts match the season folder (proveit receipt).")
	d.say("%s", d.tryLines())
	d.say("The Index: %s", rel(filepath.Join(d.site, "index.html")))
	return nil
}

// tryLines are commands of docs/scoring.md run on the demo season: one
// participant's replay, its receipts checked against the season folder,
// and the Index re-derived.
func (d *demo) tryLines() string {
	tp := d.tracks[0]
	dir := rel(d.dir(tp))
	hurried := tp.player("pressee")
	return fmt.Sprintf("Try, from the repository's root:\n"+
		"  bin/proveit score -track %[1]s -record %[2]s/preenregistrement.json -salt %[2]s/sel -key %[2]s/cle.json -views %[3]s/views -trust %[5]s -format text %[2]s/soumissions/%[6]s/*.json\n"+
		"  bin/proveit receipt -season %[3]s -key %[7]s %[8]s/*.json\n"+
		"  bin/proveit index -check %[4]s -season %[3]s -trust %[5]s",
		tp.track.Name, dir, rel(d.season), rel(d.site), rel(d.trust), hurried.ID, d.receiptKey, rel(filepath.Join(d.receipts, tp.track.Name, hurried.role)))
}

// proveit runs the toolbox from the repository's root and returns what it
// printed; a failure carries its output.
func (d *demo) proveit(ctx context.Context, args ...string) (string, error) {
	for i, a := range args {
		// Paths under the repository are given from its root, as a
		// reader of docs/scoring.md types them.
		if r, err := filepath.Rel(d.cfg.repo, a); err == nil && filepath.IsAbs(a) && !strings.HasPrefix(r, "..") {
			args[i] = r
		}
	}
	cmd := exec.CommandContext(ctx, d.cfg.proveit, args...)
	cmd.Dir = d.cfg.repo
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("proveit %s: %w\n%s%s", args[0], err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

func (d *demo) say(format string, args ...any) {
	fmt.Fprintf(d.cfg.stdout, format+"\n", args...)
}

// rel is path relative to the working folder when it lies under it.
func rel(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// sleepUntil waits for t, or for ctx to end.
func sleepUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// listen opens a loopback port.
func listen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// serveOn serves h on ln, with bounded reads, and returns how to stop it.
func serveOn(ln net.Listener, h http.Handler) func() {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	go srv.Serve(ln)
	return func() { srv.Close() }
}
