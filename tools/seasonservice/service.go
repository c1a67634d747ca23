package seasonservice

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// Config is what a Service is built from.
type Config struct {
	// Store keeps the enrollments and the submissions.
	Store seasonstore.Store
	// Seasons are the seasons the service holds; any other number answers
	// 404.
	Seasons []Season
	// TrustLayer is where enrollment asks who a key is.
	TrustLayer TrustLayer
	// Limits bound how often a key and an address may enroll and submit.
	Limits Limits
	// Clock tells the time a track is open at and a receipt is dated
	// with; default time.Now.
	Clock func() time.Time
	// ClientAddress names the address a request comes from, for its rate
	// limit; default the host of RemoteAddr. Behind a proxy, the caller
	// gives the address the proxy vouches for.
	ClientAddress func(*http.Request) string
	// Logger records what was recorded and what failed, never a secret;
	// default none.
	Logger *zap.Logger
}

// Season is one season the service holds.
type Season struct {
	Number int
	// ReceiptKey signs the season's receipts; its public half is
	// published as cle_recus.
	ReceiptKey ed25519.PrivateKey
	Tracks     []Track
}

// Track is one track of a season: its record and statements, which the
// service reads, and the other files it publishes.
type Track struct {
	// Record is the track's pre-registration record, as anchored: its
	// piste, saison, dates and taches_sha256 are the service's.
	Record []byte
	// Tasks are the track's statements, the file the record's
	// taches_sha256 anchors.
	Tasks []byte
	// Files are the track's other published files (the catalogue from the
	// opening; the manifest, key and salt after the close).
	Files []File
}

// File is one published file of a track, served at
// /v1/season/{n}/{track}/{Name}.
type File struct {
	// Name is the URL's last segment: letters, digits, '.', '_' and '-'.
	Name string
	Data []byte
	// AfterClose publishes the file only once the record's cloture has
	// passed (the manifest, the key, the salt); unset, from the opening.
	AfterClose bool
	// ContentType defaults by the name's extension: .json JSON, .md
	// Markdown, anything else plain text, each in UTF-8.
	ContentType string
}

// The names the record and the statements are published under, as a
// season's folder names them (tools/index).
const (
	RecordFile = "preenregistrement.json"
	TasksFile  = "taches.json"
)

// TrustLayer is where the service asks who a key is.
type TrustLayer struct {
	// URL is Trust Layer's origin, such as https://trust.arkforge.tech.
	URL string
	// Timeout bounds one identity call; default 5 s. Slower is
	// unavailable: 503, nothing recorded.
	Timeout time.Duration
	// Client makes the call; default a client of its own. It must not
	// follow redirects: the key would follow them.
	Client *http.Client
}

// Rate is a token bucket: Burst calls at once, refilled at PerMinute. The
// zero Rate takes the default; a negative PerMinute sets no limit.
type Rate struct {
	PerMinute float64
	Burst     int
}

// Limits are the rate limits of enrollment and submission, per key (the
// API key's or the season token's hash) and per address, and how many
// keys or addresses each limiter remembers at most.
type Limits struct {
	EnrollPerKey, EnrollPerAddress Rate
	SubmitPerKey, SubmitPerAddress Rate
	// Entries bounds each limiter's memory; default 100,000. Past it, the
	// least recently seen are forgotten, a full bucket again.
	Entries int
}

// The default limits: an enrollment is a handful of calls per
// participant; a season's submissions, one per task with a few resends,
// most of them in the hours before the close.
var defaultLimits = Limits{
	EnrollPerKey:     Rate{PerMinute: 6, Burst: 5},
	EnrollPerAddress: Rate{PerMinute: 30, Burst: 30},
	SubmitPerKey:     Rate{PerMinute: 120, Burst: 60},
	SubmitPerAddress: Rate{PerMinute: 1200, Burst: 600},
	Entries:          100_000,
}

// Service serves the season endpoints. Safe for concurrent use.
type Service struct {
	store    seasonstore.Store
	seasons  map[int]*seasonState
	identity *identityClient
	clock    func() time.Time
	address  func(*http.Request) string
	log      *zap.Logger

	enrollPerKey, enrollPerAddress *limiter
	submitPerKey, submitPerAddress *limiter
	enrollments                    enrollmentCache
}

// seasonState is a season as configured, read once.
type seasonState struct {
	number     int
	receiptKey ed25519.PrivateKey
	publicKey  string // cle_recus: base64 of the Ed25519 public key
	tracks     map[string]*trackState
	order      []string // track names, sorted
}

// trackState is a track as configured, read once.
type trackState struct {
	name     string
	record   seal.Record
	window   proofs.Window
	tasks    []byte
	entry    *score.EntryCheck
	files    map[string]File
	manifest string
}

// fileName is a published file's name: one URL segment, never . or ..
var fileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// New checks the configuration and returns the service: every track's
// record and statements decoded, the statements those the record anchors,
// every name unique.
func New(c Config) (*Service, error) {
	if c.Store == nil {
		return nil, errors.New("seasonservice: no store")
	}
	if len(c.Seasons) == 0 {
		return nil, errors.New("seasonservice: no season")
	}
	identity, err := newIdentityClient(c.TrustLayer)
	if err != nil {
		return nil, err
	}
	s := &Service{store: c.Store, seasons: map[int]*seasonState{}, identity: identity, clock: c.Clock, address: c.ClientAddress, log: c.Logger}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.address == nil {
		s.address = remoteHost
	}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	limits := c.Limits.resolve()
	s.enrollPerKey = newLimiter(limits.EnrollPerKey, limits.Entries)
	s.enrollPerAddress = newLimiter(limits.EnrollPerAddress, limits.Entries)
	s.submitPerKey = newLimiter(limits.SubmitPerKey, limits.Entries)
	s.submitPerAddress = newLimiter(limits.SubmitPerAddress, limits.Entries)
	for _, cs := range c.Seasons {
		ss, err := newSeasonState(cs)
		if err != nil {
			return nil, err
		}
		if s.seasons[ss.number] != nil {
			return nil, fmt.Errorf("seasonservice: season %d is configured twice", ss.number)
		}
		s.seasons[ss.number] = ss
	}
	return s, nil
}

func (l Limits) resolve() Limits {
	for _, r := range []struct{ value, def *Rate }{
		{&l.EnrollPerKey, &defaultLimits.EnrollPerKey},
		{&l.EnrollPerAddress, &defaultLimits.EnrollPerAddress},
		{&l.SubmitPerKey, &defaultLimits.SubmitPerKey},
		{&l.SubmitPerAddress, &defaultLimits.SubmitPerAddress},
	} {
		if *r.value == (Rate{}) {
			*r.value = *r.def
		}
		if r.value.Burst < 1 {
			r.value.Burst = 1
		}
	}
	if l.Entries <= 0 {
		l.Entries = defaultLimits.Entries
	}
	return l
}

func newSeasonState(c Season) (*seasonState, error) {
	if c.Number < 1 {
		return nil, fmt.Errorf("seasonservice: season %d: want its number, 1 or more", c.Number)
	}
	if len(c.ReceiptKey) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("seasonservice: season %d: no Ed25519 receipt key", c.Number)
	}
	if len(c.Tracks) == 0 {
		return nil, fmt.Errorf("seasonservice: season %d: no track", c.Number)
	}
	ss := &seasonState{
		number:     c.Number,
		receiptKey: c.ReceiptKey,
		publicKey:  base64.StdEncoding.EncodeToString(c.ReceiptKey.Public().(ed25519.PublicKey)),
		tracks:     map[string]*trackState{},
	}
	for i, ct := range c.Tracks {
		t, err := newTrackState(c.Number, ct)
		if err != nil {
			return nil, fmt.Errorf("seasonservice: season %d, track %d: %w", c.Number, i, err)
		}
		if ss.tracks[t.name] != nil {
			return nil, fmt.Errorf("seasonservice: season %d: track %s is configured twice", c.Number, t.name)
		}
		ss.tracks[t.name] = t
		ss.order = append(ss.order, t.name)
	}
	slices.Sort(ss.order)
	return ss, nil
}

func newTrackState(number int, c Track) (*trackState, error) {
	record, err := seal.DecodeRecord(RecordFile, c.Record)
	if err != nil {
		return nil, err
	}
	window, _ := record.Window() // DecodeRecord checked it
	tasks, err := season.DecodeTasks(TasksFile, c.Tasks)
	if err != nil {
		return nil, err
	}
	want := strconv.Itoa(number)
	switch {
	case record.Season != want:
		return nil, fmt.Errorf("%s /saison: %q, but the season is %s", RecordFile, record.Season, want)
	case tasks.Season != want:
		return nil, fmt.Errorf("%s /saison: %q, but the season is %s", TasksFile, tasks.Season, want)
	case tasks.Track != record.Track:
		return nil, fmt.Errorf("%s /piste: %q, but the record is of %q", TasksFile, tasks.Track, record.Track)
	case anchor.SHA256(c.Tasks) != record.TasksSHA256:
		// Statements the record does not anchor could have been changed
		// after the freeze: the service hands out the anchored ones only.
		return nil, fmt.Errorf("%s: its SHA-256 is not the record's taches_sha256 %s", TasksFile, record.TasksSHA256)
	}
	entry, err := score.NewEntryCheck(tasks)
	if err != nil {
		return nil, err
	}
	t := &trackState{
		name:     record.Track,
		record:   record,
		window:   window,
		tasks:    c.Tasks,
		entry:    entry,
		files:    map[string]File{},
		manifest: record.ManifestSHA256,
	}
	t.files[RecordFile] = File{Name: RecordFile, Data: c.Record}
	t.files[TasksFile] = File{Name: TasksFile, Data: c.Tasks}
	for _, f := range c.Files {
		if !fileName.MatchString(f.Name) || strings.Contains(f.Name, "..") {
			return nil, fmt.Errorf("file %q: want a name of letters, digits, '.', '_' and '-'", f.Name)
		}
		if _, taken := t.files[f.Name]; taken {
			return nil, fmt.Errorf("file %q: published twice (the record and the statements are published by the service)", f.Name)
		}
		t.files[f.Name] = f
	}
	return t, nil
}

// open reports whether the track is open at now: the record's ouverture <=
// now <= cloture, both bounds included, to the second, so that a
// receipt's recue_le always lies between them.
func (t *trackState) open(now time.Time) bool { return t.window.OpenAt(now) }

// closed reports whether the record's cloture has passed at now.
func (t *trackState) closed(now time.Time) bool { return t.window.ClosedAt(now) }

// remoteHost is the host of the request's RemoteAddr.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ServeHTTP answers every request itself, with a fixed-shape JSON body.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			// The panic's value may quote the request: only its type is logged.
			s.log.Error("season service panic", zap.String("panic_type", fmt.Sprintf("%T", p)), zap.Stack("stack"))
			refuse(w, errUnavailable)
		}
	}()
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/season/")
	if !ok || r.URL.RawPath != "" {
		refuse(w, errNotFound)
		return
	}
	parts := strings.Split(rest, "/")
	ss := s.seasonOf(parts[0])
	if ss == nil {
		refuse(w, errUnknownSeason)
		return
	}
	switch {
	case len(parts) == 1:
		if allow(w, r, http.MethodGet) {
			s.serveState(w, r, ss)
		}
	case len(parts) == 2 && parts[1] == "enroll":
		if allow(w, r, http.MethodPost) {
			s.serveEnroll(w, r, ss)
		}
	case len(parts) == 2 && parts[1] == "submit":
		if allow(w, r, http.MethodPost) {
			s.serveSubmit(w, r, ss)
		}
	case len(parts) == 3:
		if allow(w, r, http.MethodGet) {
			s.serveFile(w, ss, parts[1], parts[2])
		}
	default:
		refuse(w, errNotFound)
	}
}

// seasonOf is the season a path segment names: its number in decimal,
// with no sign and no leading zero.
func (s *Service) seasonOf(segment string) *seasonState {
	if segment == "" || len(segment) > 9 || segment[0] == '0' || strings.Trim(segment, "0123456789") != "" {
		return nil
	}
	n, _ := strconv.Atoi(segment)
	return s.seasons[n]
}

// allow answers 405 unless the request's method is method (HEAD too for
// GET).
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method || method == http.MethodGet && r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", method)
	refuse(w, errMethod)
	return false
}

// readBody reads a request's body, at most limit bytes: the body, or the
// refusal of one longer (tooBig) or cut short (unread).
func readBody(r *http.Request, limit int64, tooBig, unread *Refusal) ([]byte, *Refusal) {
	if r.ContentLength > limit {
		return nil, tooBig
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	switch {
	case err != nil:
		return nil, unread
	case int64(len(data)) > limit:
		return nil, tooBig
	}
	return data, nil
}

// throttled answers 429 when l refuses key one more request now.
func throttled(w http.ResponseWriter, l *limiter, key string, now time.Time) bool {
	ok, wait := l.take(key, now)
	if !ok {
		refuse(w, tooMany(wait))
	}
	return !ok
}

// stateTrack is a track's state as GET /v1/season/{n} writes it.
type stateTrack struct {
	Open           bool   `json:"ouverte"`
	Opening        string `json:"ouverture"`
	Closing        string `json:"cloture"`
	TasksSHA256    string `json:"taches_sha256"`
	ManifestSHA256 string `json:"manifest_sha256"`
	Enrollments    int    `json:"inscriptions"`
}

// serveState answers the season's state, computed now: whether each track
// is open by its record, how many are enrolled. Never a score.
func (s *Service) serveState(w http.ResponseWriter, r *http.Request, ss *seasonState) {
	now := s.clock()
	tracks := make(map[string]stateTrack, len(ss.tracks))
	open := false
	for _, name := range ss.order {
		t := ss.tracks[name]
		state, err := s.store.TrackState(r.Context(), ss.number, name)
		if err != nil {
			s.log.Error("read a track's state", zap.Int("season", ss.number), zap.String("track", name), zap.Error(err))
			refuse(w, errUnavailable)
			return
		}
		// The manifest's SHA-256 is the record's, public from the opening
		// with the record itself.
		tracks[name] = stateTrack{Open: t.open(now), Opening: t.record.Opening, Closing: t.record.Closing,
			TasksSHA256: t.record.TasksSHA256, ManifestSHA256: t.manifest, Enrollments: state.Enrollments}
		open = open || t.open(now)
	}
	writeJSON(w, http.StatusOK, struct {
		Season    int                   `json:"saison"`
		Open      bool                  `json:"ouverte"`
		Tracks    map[string]stateTrack `json:"pistes"`
		ReceiptPK string                `json:"cle_recus"`
	}{ss.number, open, tracks, ss.publicKey})
}

// serveFile answers a published file, byte for byte: the record at any
// time (its URL's GET through Trust Layer anchors it before the opening),
// the statements and the files not held for the close from the opening
// on, the others once the record's cloture has passed.
func (s *Service) serveFile(w http.ResponseWriter, ss *seasonState, track, name string) {
	t := ss.tracks[track]
	if t == nil {
		refuse(w, errUnknownTrack)
		return
	}
	f, ok := t.files[name]
	if !ok {
		refuse(w, errUnknownFile)
		return
	}
	now := s.clock()
	switch {
	case name != RecordFile && t.window.NotYetOpenAt(now):
		refuse(w, refusal(http.StatusNotFound, "pas_encore_publie", "Ce fichier est publié à l'ouverture de la piste ("+t.record.Opening+")."))
		return
	case f.AfterClose && !t.closed(now):
		refuse(w, refusal(http.StatusNotFound, "pas_encore_publie", "Ce fichier est publié après la clôture de la piste ("+t.record.Closing+")."))
		return
	}
	contentType := f.ContentType
	if contentType == "" {
		contentType = contentTypeOf(name)
	}
	writeBytes(w, http.StatusOK, contentType, f.Data)
}

func contentTypeOf(name string) string {
	switch {
	case strings.HasSuffix(name, ".json"):
		return jsonType
	case strings.HasSuffix(name, ".md"):
		return "text/markdown; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}

// validURL reports whether s is an absolute http or https URL.
func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
