package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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

// Where the record is served and who anchors it: the challenge's site,
// relayed by the stand-in to a loopback server holding the record's bytes.
const (
	recordOrigin = "https://proveit.arkforge.tech"
	recordAPIKey = "demo-key-arkforge-record"
	recordDID    = "did:web:proveit.arkforge.tech"
)

// config is the demo's flags.
type config struct {
	repo, out, caddy, proveit string
	window, timeout           time.Duration
	stdout                    io.Writer
}

// demo is a season played: where everything is, and each track's.
type demo struct {
	cfg                     config
	season, site, recordDir string
	// trust is the stand-in's trust material: beside the season, never in
	// it, since a reader trusts only the material it names.
	trust                   string
	opening, closing        time.Time
	trustLayerURL, rekorURL string
	tracks                  []*trackPlay
}

// trackPlay is one track's season: its enrollments, the submissions each
// wrote, and its record's proof.
type trackPlay struct {
	track       *corpus.Track
	players     []player
	files       map[string][]string // by enrollment id
	recordProof string
	recordURL   string
	reveal      [][2]string // what the close reveals: a file's name in the track's folder, its bytes
}

// dir is the track's folder in the season.
func (d *demo) dir(tp *trackPlay) string { return filepath.Join(d.season, tp.track.Name) }

// playSeason plays the season up to the views fetched and each record's
// proof verified: everything the Index is built from.
func playSeason(ctx context.Context, cfg config) (*demo, error) {
	var err error
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
	d := &demo{cfg: cfg, season: filepath.Join(cfg.out, "season"), site: filepath.Join(cfg.out, "site"), recordDir: filepath.Join(cfg.out, "record"),
		trust: filepath.Join(cfg.out, "trust")}
	serverDir := filepath.Join(cfg.out, "server")
	for _, dir := range []string{d.season, d.site, d.recordDir, d.trust, serverDir} {
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}

	secret := make([]byte, 32)
	rand.Read(secret)
	d.say("Starting the corpus server (%s) on loopback...", rel(cfg.caddy))
	srv, err := servertest.Launch(servertest.Options{Binary: cfg.caddy, Dir: serverDir, Secrets: []string{hex.EncodeToString(secret)},
		Caddyfile: filepath.Join(cfg.repo, "Caddyfile"), Lifetime: cfg.timeout})
	if srv != nil {
		defer srv.Stop()
	}
	if err != nil {
		return nil, err
	}

	records := &recordServer{files: map[string]string{}}
	recordURL, stopRecords, err := serve(records)
	if err != nil {
		return nil, err
	}
	defer stopRecords()
	api, err := listen()
	if err != nil {
		return nil, err
	}
	rekor, err := listen()
	if err != nil {
		api.Close()
		return nil, err
	}
	d.trustLayerURL, d.rekorURL = "http://"+api.Addr().String(), "http://"+rekor.Addr().String()
	tl, err := trustlayer.New(trustlayer.Options{
		BaseURL: d.trustLayerURL, RekorURL: d.rekorURL,
		Upstreams: map[string]trustlayer.Upstream{
			manifest.DefaultOrigin: {URL: srv.URL, Secret: hex.EncodeToString(secret)},
			recordOrigin:           {URL: recordURL},
		},
		// The demo closes the batches: the record's before the opening,
		// the players' once the play is over.
		BatchMaxSize: -1,
	})
	if err != nil {
		api.Close()
		rekor.Close()
		return nil, err
	}
	defer serveOn(api, tl.Handler())()
	defer serveOn(rekor, tl.RekorHandler())()
	d.say("Trust Layer stand-in on %s, its Rekor log on %s.", d.trustLayerURL, d.rekorURL)

	// The season opens a few seconds from now: time to seal and anchor the
	// records, whose proofs must be dated no later than the opening.
	d.opening = time.Now().UTC().Truncate(time.Second).Add(3 * time.Second)
	d.closing = d.opening.Add(cfg.window)
	for _, track := range corpus.Tracks {
		tp := &trackPlay{track: track, players: players(track), files: map[string][]string{}}
		d.tracks = append(d.tracks, tp)
		if err := d.sealAndAnchor(tp, tl, records); err != nil {
			return nil, err
		}
	}
	if _, err := tl.CloseBatch(); err != nil {
		return nil, err
	}
	if anchored := time.Now().UTC().Truncate(time.Second); anchored.After(d.opening) {
		return nil, fmt.Errorf("the records were anchored at %s, after the season's opening %s: the machine is too slow for the demo's timing", seal.FormatUTC(anchored), seal.FormatUTC(d.opening))
	}
	if err := sleepUntil(ctx, d.opening); err != nil {
		return nil, err
	}

	d.say("The season is open, %s to %s. Playing, on each track:\n%s", seal.FormatUTC(d.opening), seal.FormatUTC(d.closing),
		strings.TrimSuffix(describe(d.tracks[0].players), "\n"))
	client := &http.Client{Timeout: 30 * time.Second}
	started := time.Now()
	// The tracks play side by side, each enrollment after the other.
	errs := make([]error, len(d.tracks))
	var wg sync.WaitGroup
	for i, tp := range d.tracks {
		wg.Go(func() { errs[i] = d.playTrack(ctx, tp, client) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	d.say("Played in %.1f s, %d proofs issued.", time.Since(started).Seconds(), tl.Pending())
	if _, err := tl.CloseBatch(); err != nil {
		return nil, err
	}
	if ended := time.Now().UTC().Truncate(time.Second); ended.After(d.closing) {
		return nil, fmt.Errorf("the play ended at %s, after the season's closing %s: give it a longer -window than %s", seal.FormatUTC(ended), seal.FormatUTC(d.closing), cfg.window)
	}
	if err := d.writeTrust(tl); err != nil {
		return nil, err
	}
	d.say("Every batch is anchored; waiting for the closing, %s.", seal.FormatUTC(d.closing))
	if err := sleepUntil(ctx, d.closing.Add(time.Second)); err != nil {
		return nil, err
	}

	for _, tp := range d.tracks {
		if err := d.close(tp); err != nil {
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
	logs := srv.Output()
	for _, file := range []string{srv.TelemetryLog(), srv.AccessLog()} {
		data, err := os.ReadFile(file)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		logs += string(data)
	}
	if strings.Contains(logs, hex.EncodeToString(secret)) {
		return nil, errors.New("a log of the corpus server holds its secret")
	}
	return d, nil
}

// sealAndAnchor seals a track's record with a fresh salt for the demo's
// window, then anchors it through the stand-in: a GET of the record's URL
// through its proxy, the record's bytes served there.
func (d *demo) sealAndAnchor(tp *trackPlay, tl *trustlayer.TrustLayer, records *recordServer) error {
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
	if err := os.MkdirAll(filepath.Join(d.season, name), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files.ScoringSection = seal.File{Name: filepath.Join(dir, "bareme.md"),
		Data: []byte("# Barème de la piste " + name + ", saison de démonstration\n\nLe barème de la saison 1, appliqué tel que `proveit score` le rejoue.\n")}
	if err := atomicfile.Replace(files.ScoringSection.Name, files.ScoringSection.Data, 0o644); err != nil {
		return err
	}
	// The salt stays private, outside every work tree, until the close
	// reveals it into the season folder.
	private, err := os.MkdirTemp("", "proveit-demo-salt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(private)
	record := filepath.Join(d.season, name, "preenregistrement.json")
	if _, err := seal.Seal(record, filepath.Join(private, "sel"), name, tasks.Season, proofs.Window{Opening: d.opening, Closing: d.closing}, files, false); err != nil {
		return err
	}
	salt, err := os.ReadFile(filepath.Join(private, "sel"))
	if err != nil {
		return err
	}
	tp.reveal = [][2]string{{"cle.json", string(files.Key.Data)}, {"sel", string(salt)}}

	path := "/saison-1/" + name + "/preenregistrement.json"
	records.add(path, record)
	tp.recordURL = recordOrigin + path
	relay := participant.NewProxiedRelay(&participant.TrustLayer{URL: d.trustLayerURL, APIKey: recordAPIKey, AgentDID: recordDID}, recordOrigin)
	proof, err := relay.Call(path)
	if err != nil {
		return fmt.Errorf("anchoring %s: %w", record, err)
	}
	if proof.Status != http.StatusOK {
		return fmt.Errorf("anchoring %s: the record's URL answered %d", record, proof.Status)
	}
	tp.recordProof = proof.ID
	// Published beside the record, so that the Index verifies the proof
	// that anchored it, and names it.
	published, err := json.MarshalIndent(seal.Anchoring{ProofID: proof.ID, RecordURL: tp.recordURL, Disclosure: proof.Disclosure}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Replace(filepath.Join(d.season, name, seal.AnchoringFile), append(published, '\n'), 0o644); err != nil {
		return err
	}
	disclosure, err := json.MarshalIndent(proof.Disclosure, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Replace(filepath.Join(dir, "disclosure.json"), append(disclosure, '\n'), 0o644); err != nil {
		return err
	}
	anchoring, err := json.MarshalIndent(map[string]string{"proof_id": proof.ID, "record_url": tp.recordURL}, "", "  ")
	if err != nil {
		return err
	}
	d.say("Sealed %s and anchored it through the stand-in: %s.", rel(record), proof.ID)
	return atomicfile.Replace(filepath.Join(dir, "anchoring.json"), append(anchoring, '\n'), 0o644)
}

// playTrack enrolls and plays each of a track's enrollments in order.
func (d *demo) playTrack(ctx context.Context, tp *trackPlay, client *http.Client) error {
	p := &play{origin: manifest.DefaultOrigin, tl: d.trustLayerURL, client: client}
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
		e.EnrolledAt = seal.FormatUTC(time.Now())
		dir := filepath.Join(d.dir(tp), "soumissions", e.ID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if tp.files[e.ID], err = playEnrollment(p, e, dir); err != nil {
			return err
		}
	}
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

// close hands a track over as a season's close does: the enrollment
// export, and the key and salt revealed.
func (d *demo) close(tp *trackPlay) error {
	export := index.Enrollments{Season: 1, Track: tp.track.Name}
	for _, p := range tp.players {
		export.Enrollments = append(export.Enrollments, p.Enrollment)
	}
	data, err := json.MarshalIndent(export, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Replace(filepath.Join(d.dir(tp), "inscriptions.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	for _, f := range tp.reveal {
		if err := atomicfile.Replace(filepath.Join(d.dir(tp), f[0]), []byte(f[1]), 0o644); err != nil {
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
		for _, e := range tp.players {
			args = append(args, tp.files[e.ID]...)
		}
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
	d.say("%s", d.tryLines())
	d.say("The Index: %s", rel(filepath.Join(d.site, "index.html")))
	return nil
}

// tryLines are commands of docs/scoring.md run on the demo season: one
// participant's replay, and the Index re-derived.
func (d *demo) tryLines() string {
	tp := d.tracks[0]
	dir := rel(d.dir(tp))
	return fmt.Sprintf("Try, from the repository's root:\n"+
		"  bin/proveit score -track %[1]s -record %[2]s/preenregistrement.json -salt %[2]s/sel -key %[2]s/cle.json -views %[3]s/views -trust %[5]s -format text %[2]s/soumissions/pressee/*.json\n"+
		"  bin/proveit index -check %[4]s -season %[3]s -trust %[5]s",
		tp.track.Name, dir, rel(d.season), rel(d.site), rel(d.trust))
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

// recordServer serves each track's record at its public path, read from
// the season folder at each request: the bytes the seal wrote.
type recordServer struct {
	mu    sync.Mutex
	files map[string]string // public path -> file
}

func (s *recordServer) add(path, file string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = file
}

func (s *recordServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	file, ok := s.files[r.URL.Path]
	s.mu.Unlock()
	if !ok || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// listen opens a loopback port.
func listen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// serve serves h on a new loopback port and returns its URL and how to
// stop it.
func serve(h http.Handler) (string, func(), error) {
	ln, err := listen()
	if err != nil {
		return "", nil, err
	}
	return "http://" + ln.Addr().String(), serveOn(ln, h), nil
}

// serveOn serves h on ln, with bounded reads, and returns how to stop it.
func serveOn(ln net.Listener, h http.Handler) func() {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	go srv.Serve(ln)
	return func() { srv.Close() }
}
