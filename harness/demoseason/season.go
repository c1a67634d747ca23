package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
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
	"github.com/arkforge/proveit-corpus/tools/proofs"
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
		if err := d.close(ctx, tp, client); err != nil {
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

	d.opening = time.Now().UTC().Truncate(time.Second).Add(lead)
	d.closing = d.opening.Add(cfg.window)
	for _, track := range corpus.Tracks {
		tp := &trackPlay{track: track, players: players(track), refused: map[string]*participant.Refusal{}}
		d.tracks = append(d.tracks, tp)
		if err := d.seal(tp); err != nil {
			return d, err
		}
	}
	if err := d.writeServiceFiles(); err != nil {
		return d, err
	}

	secret := make([]byte, 32)
	rand.Read(secret)
	d.secret = hex.EncodeToString(secret)
	servicePort, err := servertest.PickPort()
	if err != nil {
		return d, err
	}
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
	d.serviceURL = "http://127.0.0.1:" + strconv.Itoa(servicePort)

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
	if err := d.writeTrust(d.tl); err != nil {
		return d, err
	}
	return d, nil
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
	if strings.HasPrefix(database, "postgres://") || strings.HasPrefix(database, "postgresql://") {
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
		env["SEASON_"+strings.ToUpper(tp.track.Name)+"_RECORD"] = filepath.Join(d.dir(tp), "preenregistrement.json")
	}
	return env
}

// seal seals a track's record with a fresh salt for the demo's window;
// the salt goes to the season service's private files, published after the
// close.
func (d *demo) seal(tp *trackPlay) error {
	name := tp.track.Name
	read := func(path string) (seal.File, error) {
		data, err := os.ReadFile(filepath.Join(d.cfg.repo, path))
		return seal.File{Name: path, Data: data}, err
	}
	var files seal.Files
	var err error
	if files.Manifest, err = read(filepath.Join("manifest", manifest.FileName(tp.track))); err != nil {
		return err
	}
	if files.Tasks, err = read(season.TasksFile(tp.track)); err != nil {
		return err
	}
	if files.Key, err = read(season.KeyFile(tp.track)); err != nil {
		return err
	}
	tasks, err := season.DecodeTasks(files.Tasks.Name, files.Tasks.Data)
	if err != nil {
		return err
	}
	dir := filepath.Join(d.recordDir, name)
	after := filepath.Join(d.private, name, "apres-cloture")
	for _, folder := range []string{filepath.Join(d.season, name), dir, after} {
		if err := os.MkdirAll(folder, 0o755); err != nil {
			return err
		}
	}
	files.ScoringSection = seal.File{Name: filepath.Join(dir, "bareme.md"),
		Data: []byte("# Barème de la piste " + name + ", saison de démonstration\n\nLe barème de la saison 1, appliqué tel que `proveit score` le rejoue.\n")}
	if err := atomicfile.Replace(files.ScoringSection.Name, files.ScoringSection.Data, 0o644); err != nil {
		return err
	}
	record := filepath.Join(d.season, name, "preenregistrement.json")
	_, err = seal.Seal(record, filepath.Join(after, "sel"), name, tasks.Season, proofs.Window{Opening: d.opening, Closing: d.closing}, files, false)
	return err
}

// writeServiceFiles writes what the season service reads from SEASON_DIR:
// the receipt key, and each track's files, the catalogue from the opening,
// the manifest and the key after the close (beside the salt the seal
// wrote there).
func (d *demo) writeServiceFiles() error {
	key, public, err := seasonservice.NewReceiptKey()
	if err != nil {
		return err
	}
	d.receiptKey = base64.StdEncoding.EncodeToString(public)
	if err := os.WriteFile(filepath.Join(d.private, "receipt.key"), key, 0o600); err != nil {
		return err
	}
	for _, tp := range d.tracks {
		name := tp.track.Name
		for _, f := range [][2]string{
			{filepath.Join("docs", "catalogue", name+".json"), filepath.Join(name, "catalogue.json")},
			{filepath.Join("manifest", manifest.FileName(tp.track)), filepath.Join(name, "apres-cloture", "manifest.json")},
			{season.KeyFile(tp.track), filepath.Join(name, "apres-cloture", "cle.json")},
		} {
			data, err := os.ReadFile(filepath.Join(d.cfg.repo, f[0]))
			if err != nil {
				return err
			}
			if err := atomicfile.Replace(filepath.Join(d.private, f[1]), data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// anchor anchors a track's record as the season's operator does, with
// proveit anchor: a GET of the record's URL on the season service, through
// Trust Layer's proxy, before the opening, its proof and disclosure
// written beside the record.
func (d *demo) anchor(ctx context.Context, tp *trackPlay) error {
	name := tp.track.Name
	record := filepath.Join(d.season, name, "preenregistrement.json")
	tp.recordURL = serviceOrigin + "/v1/season/" + strconv.Itoa(seasonNumber) + "/" + name + "/" + seasonservice.RecordFile
	keyFile := filepath.Join(d.private, "challenge.key")
	if err := os.WriteFile(keyFile, []byte(recordAPIKey+"\n"), 0o600); err != nil {
		return err
	}
	anchoringFile := filepath.Join(d.season, name, seal.AnchoringFile)
	if _, err := d.proveit(ctx, "anchor", "-track", name, "-record", record, "-record-url", tp.recordURL,
		"-trust-layer", d.trustLayerURL, "-api-key-file", keyFile, "-o", anchoringFile); err != nil {
		return err
	}
	data, err := os.ReadFile(anchoringFile)
	if err != nil {
		return err
	}
	anchoring, err := seal.DecodeAnchoring(anchoringFile, data)
	if err != nil {
		return err
	}
	tp.recordProof = anchoring.ProofID
	// What seal -verify takes, one flag each.
	dir := filepath.Join(d.recordDir, name)
	disclosure, err := json.MarshalIndent(anchoring.Disclosure, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Replace(filepath.Join(dir, "disclosure.json"), append(disclosure, '\n'), 0o644); err != nil {
		return err
	}
	d.say("Sealed %s and anchored it through the stand-in, a GET of %s: %s.", rel(record), tp.recordURL, anchoring.ProofID)
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
	// Enrollment ids are the season's, across its tracks.
	id := "reference-" + tp.track.Name
	tokenFile := filepath.Join(d.private, tp.track.Name+"-reference.token")
	if _, err := d.proveit(context.Background(), "enroll", "-track", tp.track.Name, "-database", d.database, "-id", id,
		"-entry", file, "-token", tokenFile, "-record", filepath.Join(d.dir(tp), "preenregistrement.json")); err != nil {
		return err
	}
	token, err := os.ReadFile(tokenFile)
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

// close hands a track over as a season's close does: proveit close
// exports it from the season service's database into the season folder,
// then the key and the salt are read from the service, which publishes
// them once the record's cloture has passed.
func (d *demo) close(ctx context.Context, tp *trackPlay, client *http.Client) error {
	out, err := d.proveit(ctx, "close", "-track", tp.track.Name, "-database", d.database, "-receipt-key", filepath.Join(d.private, "receipt.key"),
		"-record", filepath.Join(d.dir(tp), "preenregistrement.json"), "-o", d.season)
	if err != nil {
		return err
	}
	d.say("%s", strings.TrimSpace(out))
	for _, name := range []string{"cle.json", "sel"} {
		url := d.serviceURL + "/v1/season/" + strconv.Itoa(seasonNumber) + "/" + tp.track.Name + "/" + name
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s after the close: %d %s", url, resp.StatusCode, data)
		}
		if err := atomicfile.Replace(filepath.Join(d.dir(tp), name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fetch reads every cited proof's view and its batch's Rekor entry from
// the stand-in into the season's views folder; none may be pending.
func (d *demo) fetch(ctx context.Context) error {
	args := []string{"proofs", "fetch", "-views", filepath.Join(d.season, "views"), "-trust-layer", d.trustLayerURL, "-rekor", d.rekorURL}
	for _, tp := range d.tracks {
		args = append(args, tp.recordProof)
		exported, err := filepath.Glob(filepath.Join(d.dir(tp), "soumissions", "*", "*.json"))
		if err != nil {
			return err
		}
		args = append(args, exported...)
	}
	out, err := d.proveit(ctx, args...)
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

// verifyRecord checks a track's record as anyone can: the files and the
// revealed salt open it, and its proof anchors its bytes before the
// opening.
func (d *demo) verifyRecord(ctx context.Context, tp *trackPlay) error {
	dir := filepath.Join(d.recordDir, tp.track.Name)
	out, err := d.proveit(ctx, "seal", "-verify", "-track", tp.track.Name,
		"-record", filepath.Join(d.dir(tp), "preenregistrement.json"), "-salt", filepath.Join(d.dir(tp), "sel"),
		"-key", filepath.Join(d.dir(tp), "cle.json"), "-scoring-section", filepath.Join(dir, "bareme.md"),
		"-views", filepath.Join(d.season, "views"), "-proof", tp.recordProof, "-disclosure", filepath.Join(dir, "disclosure.json"),
		"-record-url", tp.recordURL, "-trust", d.trust)
	if err != nil {
		return err
	}
	d.say("%s", strings.TrimSpace(out))
	return nil
}

// publish builds the Index from the season folder, re-derives it, and
// prints its path.
func (d *demo) publish(ctx context.Context) error {
	if _, err := d.proveit(ctx, "index", "-season", d.season, "-o", d.site, "-trust", d.trust); err != nil {
		return err
	}
	out, err := d.proveit(ctx, "index", "-check", d.site, "-season", d.season, "-trust", d.trust)
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
