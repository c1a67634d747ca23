// Package corpushandler is the Caddy HTTP handler that serves the frozen
// corpus of the PROVE IT challenge: it gates every request on the challenge
// secret, serves the corpus bytes unchanged from memory after checking them
// against the manifest, answers every other request with one of the
// contract's fixed JSON bodies, and logs each call as internal telemetry.
//
// It never calls the next handler and never returns an error, so that no
// response of Caddy's own (an empty body, a plain-text error) can reach a
// caller.
//
// Beside the handler (http.handlers.proveit_corpus), the package holds the
// modules that keep its answers whole under load and abuse, and its logs:
// the listener wrappers caddy.listeners.proveit_limits (per-address caps,
// HTTP/2 limits, connections held until the configuration and its
// certificates are ready), proveit_guard and proveit_h2_guard, the
// telemetry writer caddy.logging.writers.proveit_file and the journal's
// encoder caddy.logging.encoders.proveit_journal.
package corpushandler

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/afero"
	"go.uber.org/zap"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/tree"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler serves the corpus. Every response is a non-empty JSON object with
// no-cache headers, decided in this order: the secret gate (403), the
// maintenance switch (503), a malformed or unsupported request (400), a
// resource of the manifest (200, the file's bytes), a well-formed reference
// with no file (200, "existe": false), anything else (404).
type Handler struct {
	// Secrets accepted in the X-Challenge-Secret header, compared in constant
	// time; several at once allow a rotation. Each may be a placeholder
	// resolved at provisioning, such as {env.CORPUS_CHALLENGE_SECRET} or
	// {file./etc/proveit/secret}, so the value never enters the config. A
	// placeholder that resolves to nothing leaves its slot unused; at least
	// one secret of 32 bytes or more is required.
	Secrets []string `json:"secrets,omitempty"`

	// Corpora are the trees served together, one per track (docs/contract.md,
	// section 3), each checked byte for byte against its own manifest. None
	// means every track's tree and manifest embedded in the binary.
	Corpora []Corpus `json:"corpora,omitempty"`

	// Hosts, when set, are the only Host names answered; any other gets the
	// 400 body once past the gate. Compared without the port, ignoring case.
	Hosts []string `json:"hosts,omitempty"`

	// Maintenance answers the 503 body to every request that passes the gate.
	Maintenance bool `json:"maintenance,omitempty"`

	digests     [][sha256.Size]byte
	hosts       map[string]bool
	resources   map[string]*response
	citedAbsent map[string]*response   // absent references the manifests list, answered as prepared
	served      map[*corpus.Track]bool // tracks whose collections answer absent references
	badRequest  *response
	forbidden   *response
	notFound    *response
	unavailable *response
	telemetry   *zap.Logger
	startup     *startupRecords
	metrics     *metrics
	absentCalls map[*corpus.Track]prometheus.Counter // absent references the manifests do not list, by track
}

// Corpus is one track's tree, served beside the others by the same handler.
type Corpus struct {
	// Track names the track: conformite or generique.
	Track string `json:"track"`

	// Root is the folder of the track's tree on disk. Empty, or a
	// placeholder that resolves to nothing, means the tree embedded in the
	// binary.
	Root string `json:"root,omitempty"`

	// Manifest is the path of the manifest the tree must match byte for
	// byte. Empty, or a placeholder that resolves to nothing, means the
	// track's manifest embedded in the binary.
	Manifest string `json:"manifest,omitempty"`

	// ManifestSHA256 pins the manifest: the SHA-256, in hex, of the
	// manifest file ArkForge anchored at the track's pre-registration. Any
	// other manifest is refused at start and at reload. It may be a
	// placeholder such as {env.CORPUS_MANIFEST_SHA256} or
	// {file./etc/proveit/manifest.sha256}; empty, or resolving to nothing,
	// means no pin.
	ManifestSHA256 string `json:"manifest_sha256,omitempty"`

	// tree is the file system the tree is read from; tests may set it.
	tree afero.Fs
}

// loadedCorpus is a corpus once its bytes matched its manifest.
type loadedCorpus struct {
	track *corpus.Track
	// answers holds the answer to every entry of the manifest, in its
	// order, in one allocation; resource names each entry's path.
	answers   []response
	resources int    // entries answered with a file's bytes
	sha256    string // the manifest's
	pinned    bool
}

// load resolves a corpus's placeholders, reads its manifest and checks its
// tree against it, byte for byte.
func (c *Corpus) load(repl *settingsReplacer) (*loadedCorpus, error) {
	track, err := corpus.TrackNamed(c.Track)
	if err != nil {
		return nil, err
	}
	root, err := repl.resolve(c.Root)
	if err != nil {
		return nil, fmt.Errorf("root: %w", err)
	}
	manifestPath, err := repl.resolve(c.Manifest)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	pin, err := repl.resolve(c.ManifestSHA256)
	if err != nil {
		return nil, fmt.Errorf("manifest_sha256: %w", err)
	}
	pin = strings.TrimSpace(pin)
	if pin != "" && !anchor.IsSHA256(pin) {
		return nil, fmt.Errorf("manifest_sha256: %q is not a SHA-256 in lowercase hex", pin)
	}
	src, err := openManifest(track, manifestPath)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	answers, served, err := verify.Load(src, c.fs(track, root), track, answerOf)
	// A manifest other than the pinned one is refused as such, whatever
	// else is wrong with it or with the tree.
	if served != "" && pin != "" && served != pin {
		return nil, fmt.Errorf("refusing to serve: the manifest's SHA-256 is %s, the pinned one is %s", served, pin)
	}
	if err != nil {
		return nil, fmt.Errorf("refusing to serve: %w", err)
	}
	loaded := &loadedCorpus{track: track, answers: answers, sha256: served, pinned: pin != ""}
	for i := range answers {
		if answers[i].outcome == outcomeResource {
			loaded.resources++
		}
	}
	return loaded, nil
}

// answerOf is the answer to an entry whose bytes matched the manifest.
// Its resource names the entry's path until add files it.
func answerOf(e verify.Served) response {
	switch e.Kind {
	case manifest.System:
		return makeResponse(corpus.SystemStatus[e.Path], systemOutcomes[e.Path], e.Path, e.Body, e.SHA256)
	case manifest.Absent:
		return makeResponse(http.StatusOK, outcomeAbsent, e.Path, e.Body, e.SHA256)
	}
	return makeResponse(http.StatusOK, outcomeResource, e.Path, e.Body, e.SHA256)
}

// fs is the tree to serve: the one a test put in place, the folder on disk
// (read only, in the fewest system calls), or the track's tree embedded in
// the binary.
func (c *Corpus) fs(track *corpus.Track, root string) fs.FS {
	switch {
	case c.tree != nil:
		return afero.NewIOFS(c.tree)
	case root != "":
		return tree.Dir(root)
	}
	return track.Embedded()
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.proveit_corpus",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision resolves the secrets, reads the tree and the manifest, and keeps
// the corpus in memory only if every byte matches. A failure leaves a running
// server on its previous configuration.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.telemetry = ctx.Logger()
	h.startup = &startupRecords{telemetry: h.telemetry}
	var err error
	if h.metrics, err = newMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	repl := newSettingsReplacer()
	if err := h.provisionSecrets(repl); err != nil {
		return err
	}
	h.hosts = make(map[string]bool, len(h.Hosts))
	for _, host := range h.Hosts {
		h.hosts[strings.ToLower(host)] = true
	}
	corpora := h.Corpora
	if len(corpora) == 0 {
		for _, t := range corpus.Tracks {
			corpora = append(corpora, Corpus{Track: t.Name})
		}
	}
	h.served = map[*corpus.Track]bool{}
	loaded := make([]*loadedCorpus, 0, len(corpora))
	entries := 0
	for i := range corpora {
		c, err := corpora[i].load(repl)
		if err != nil {
			return fmt.Errorf("corpus %q: %w", corpora[i].Track, err)
		}
		if h.served[c.track] {
			return fmt.Errorf("corpus %q: the track is configured twice", c.track.Name)
		}
		h.served[c.track] = true
		loaded = append(loaded, c)
		entries += len(c.answers)
	}
	h.resources = make(map[string]*response, entries)
	h.citedAbsent = map[string]*response{}
	h.absentCalls = map[*corpus.Track]prometheus.Counter{}
	system := map[string]*response{}
	for _, c := range loaded {
		if err := h.add(c, system); err != nil {
			return err
		}
		h.absentCalls[c.track] = h.metrics.counter(outcomeAbsent, c.track.Name)
		h.metrics.manifest.WithLabelValues(c.track.Name, c.sha256, strconv.FormatBool(c.pinned)).Set(1)
		h.startup.corpora = append(h.startup.corpora, []zap.Field{
			zap.String("track", c.track.Name),
			zap.Int("resources", c.resources),
			zap.Int("manifest_entries", len(c.answers)),
			zap.String("manifest_sha256", c.sha256),
			zap.Bool("manifest_pinned", c.pinned),
		})
	}
	h.badRequest = system[corpus.SystemBadRequest]
	h.forbidden = system[corpus.SystemForbidden]
	h.notFound = system[corpus.SystemNotFound]
	h.unavailable = system[corpus.SystemUnavailable]
	h.startup.served = []zap.Field{
		zap.Int("corpora", len(corpora)),
		zap.Int("resources", len(h.resources)),
		zap.Int("secret_slots", len(h.digests)),
		zap.Bool("maintenance", h.Maintenance),
	}
	h.startup.write(caddy.Log().Named(journalLogger))
	// Loading leaves the index of the tree as read, the listing of its
	// manifest and the checks' work as garbage, half the corpus's size:
	// hand it back to the system now rather than hold it for the life of
	// the process.
	debug.FreeOSMemory()
	return nil
}

// add takes a verified corpus's answers into the handler. No path may be
// served by two trees, as a resource or as an absent reference; the fixed
// bodies must be the same bytes in every tree, and are kept once.
func (h *Handler) add(c *loadedCorpus, system map[string]*response) error {
	// Within a tree every path is listed once: one already served is
	// another tree's.
	claim := func(path string) error {
		if h.resources[path] != nil || h.citedAbsent[path] != nil {
			return fmt.Errorf("refusing to serve: %s of %s is claimed by another tree served beside it", path, c.track.Name)
		}
		return nil
	}
	for i := range c.answers {
		answer := &c.answers[i]
		path := answer.resource
		switch answer.outcome {
		case outcomeResource:
			if err := claim(path); err != nil {
				return err
			}
			answer.calls = h.metrics.counter(answer.outcome, c.track.Name)
			h.resources[path] = answer
		case outcomeAbsent:
			if err := claim(path); err != nil {
				return err
			}
			answer.calls = h.metrics.counter(answer.outcome, c.track.Name)
			h.citedAbsent[path] = answer
		default: // a fixed body
			if kept, ok := system[path]; ok {
				if !bytes.Equal(kept.body, answer.body) {
					return fmt.Errorf("refusing to serve: the fixed body %s of %s differs from the one already served", path, c.track.Name)
				}
				continue
			}
			// A refusal names no resource in telemetry.
			fixed := *answer
			fixed.resource = ""
			fixed.calls = h.metrics.counter(fixed.outcome, noTrack)
			system[path] = &fixed
		}
	}
	return nil
}

// systemOutcomes says what telemetry calls each fixed body's answer.
var systemOutcomes = map[string]string{
	corpus.SystemBadRequest:  outcomeMalformed,
	corpus.SystemForbidden:   outcomeForbidden,
	corpus.SystemNotFound:    outcomeNotFound,
	corpus.SystemUnavailable: outcomeUnavailable,
}

func (h *Handler) provisionSecrets(repl *settingsReplacer) error {
	h.digests = nil
	for slot, configured := range h.Secrets {
		value, err := repl.resolve(configured)
		if err != nil {
			return fmt.Errorf("secret slot %d%s: %w", slot, secretSource(configured), err)
		}
		if value == "" {
			continue
		}
		if len(value) < corpus.MinSecretLength {
			return fmt.Errorf("secret slot %d%s: shorter than %d bytes", slot, secretSource(configured), corpus.MinSecretLength)
		}
		h.digests = append(h.digests, sha256.Sum256([]byte(value)))
	}
	if len(h.digests) == 0 {
		return fmt.Errorf("no challenge secret configured: the corpus never runs open")
	}
	return nil
}

// secretSource names where a secret slot's value comes from, for an error
// to say what to change: " (CORPUS_CHALLENGE_SECRET)" for a slot that is one
// environment variable, " (the file /etc/proveit/secret)" for one file.
// Anything else names nothing: a slot written in the configuration as a
// literal is the secret itself.
func secretSource(configured string) string {
	inner, ok := strings.CutPrefix(configured, "{")
	if inner, ok = strings.CutSuffix(inner, "}"); !ok || strings.ContainsAny(inner, "{}") {
		return ""
	}
	if name, ok := strings.CutPrefix(inner, "env."); ok {
		return " (" + name + ")"
	}
	if name, ok := strings.CutPrefix(inner, "file."); ok {
		return " (the file " + name + ")"
	}
	return ""
}

// openManifest opens the manifest file, or the track's embedded one for an
// empty path.
func openManifest(track *corpus.Track, path string) (interface {
	io.ReadSeeker
	io.Closer
}, error) {
	if path == "" {
		return nopCloser{bytes.NewReader(manifest.Embedded(track))}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading manifest: %w", err)
	}
	return f, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// Validate checks the configuration that provisioning resolved.
func (h *Handler) Validate() error {
	if len(h.digests) == 0 || h.resources == nil {
		return fmt.Errorf("handler not provisioned")
	}
	return nil
}

// ServeHTTP answers every request itself with one of the contract's bodies.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	start := time.Now()
	h.startup.once.Do(h.startup.writeTelemetry)
	resp, slot := h.unavailable, -1
	defer func() {
		if p := recover(); p != nil {
			// Never let Caddy answer an empty 500: the 503 body stands for any fault.
			resp = h.unavailable
			h.write(w, resp)
			// The panic's value may quote the request: only its type is logged.
			h.telemetry.Error("handler panic", zap.String("panic_type", fmt.Sprintf("%T", p)), zap.Stack("stack"))
		}
		took := time.Since(start)
		h.metrics.observe(resp, took)
		h.log(r, resp, slot, took)
	}()
	resp, slot = h.answer(r)
	h.write(w, resp)
	return nil
}

// answer decides the response, in the contract's order.
func (h *Handler) answer(r *http.Request) (*response, int) {
	slot := h.matchSecret(r.Header.Values(corpus.SecretHeader))
	switch {
	case slot < 0:
		return h.forbidden, slot
	case h.Maintenance:
		return h.unavailable, slot
	case r.Method != http.MethodGet, hasBody(r), !h.hostAllowed(r.Host):
		return h.badRequest, slot
	}
	switch outcome, path, ref := corpus.Classify(r.RequestURI, h.isResource); outcome {
	case corpus.Resource:
		return h.resources[path], slot
	case corpus.AbsentReference:
		track := ref.Track()
		if !h.served[track] {
			return h.notFound, slot // a collection of a track this server does not serve
		}
		if cited := h.citedAbsent[path]; cited != nil {
			return cited, slot // prepared as the manifest lists it
		}
		// Telemetry names the path only when the manifest lists it: any
		// other is free text of the caller's.
		body := corpus.AbsentBody(path)
		resp := newResponse(http.StatusOK, outcomeAbsent, "", body, anchor.SHA256(body))
		resp.calls = h.absentCalls[track]
		return resp, slot
	case corpus.NotFound:
		return h.notFound, slot
	}
	return h.badRequest, slot
}

func (h *Handler) isResource(path string) bool {
	_, ok := h.resources[path]
	return ok
}

// hasBody reports whether a request carries a body. HTTP/1.1 says so in its
// headers; HTTP/2 and HTTP/3 may leave the length unknown, and then a body is
// there if a byte of it can be read (the server's read timeout bounds the wait).
func hasBody(r *http.Request) bool {
	switch {
	case r.ContentLength > 0, len(r.TransferEncoding) > 0:
		return true
	case r.ContentLength == 0, r.Body == nil, r.Body == http.NoBody:
		return false
	}
	var b [1]byte
	n, err := io.ReadFull(r.Body, b[:])
	return n > 0 || err != io.EOF
}

// matchSecret returns the slot of the secret the header carries, or -1. Every
// slot is compared, in constant time over digests, so neither the position of
// a match nor the length of a secret shows in the timing.
func (h *Handler) matchSecret(values []string) int {
	if len(values) != 1 {
		return -1
	}
	digest := digestOf(values[0])
	slot := -1
	for i := range h.digests {
		if subtle.ConstantTimeCompare(digest[:], h.digests[i][:]) == 1 {
			slot = i
		}
	}
	return slot
}

// digestOf hashes a header value, through a stack buffer when it fits so
// that the gate allocates nothing.
func digestOf(value string) [sha256.Size]byte {
	var buf [256]byte
	if len(value) <= len(buf) {
		return sha256.Sum256(buf[:copy(buf[:], value)])
	}
	return sha256.Sum256([]byte(value))
}

// hostAllowed reports whether a Host header names a served host, with or
// without a port. net.SplitHostPort takes any text after the last colon for
// the port ("127.0.0.1:8443 x" splits), so the port must be digits: over
// HTTP/3 such a Host reaches the handler unparsed.
func (h *Handler) hostAllowed(hostport string) bool {
	if len(h.hosts) == 0 {
		return true
	}
	host := hostport
	if hst, port, err := net.SplitHostPort(hostport); err == nil {
		if !isPort(port) {
			return false
		}
		host = hst
	}
	return h.hosts[strings.ToLower(strings.Trim(host, "[]"))]
}

// isPort reports whether s is a port as a URI writes it: up to 5 decimal
// digits, possibly none ("host:" is a Host with an empty port).
func isPort(s string) bool {
	return len(s) <= 5 && strings.Trim(s, "0123456789") == ""
}

// fixedHeaders go on every response. Each value is a shared slice, never
// modified, so that setting them allocates nothing.
var fixedHeaders = http.Header{
	"Content-Type":           {"application/json; charset=utf-8"},
	"Cache-Control":          {"no-store, no-cache, must-revalidate, max-age=0"},
	"Pragma":                 {"no-cache"},
	"Expires":                {"0"},
	"X-Content-Type-Options": {"nosniff"},
}

func (h *Handler) write(w http.ResponseWriter, resp *response) {
	header := w.Header()
	for name, values := range fixedHeaders {
		header[name] = values
	}
	for _, name := range []string{"Etag", "Last-Modified", "Accept-Ranges", "Content-Encoding"} {
		delete(header, name)
	}
	header["Content-Length"] = resp.contentLength[:]
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body) // a client gone mid-body is logged by Caddy, nothing to answer
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)

// response is one prepared answer: status, bytes, and what telemetry says of it.
type response struct {
	status        int
	body          []byte
	contentLength [1]string // the header's value, shared by every call the answer serves
	sha256        string
	outcome       string
	resource      string
	calls         prometheus.Counter // the metrics' count of its outcome and track
}

// newResponse is an answer made for one call.
func newResponse(status int, outcome, resource string, body []byte, bodySHA256 string) *response {
	r := makeResponse(status, outcome, resource, body, bodySHA256)
	return &r
}

// makeResponse is an answer, to be kept where it is made.
func makeResponse(status int, outcome, resource string, body []byte, bodySHA256 string) response {
	return response{
		status:        status,
		body:          body,
		contentLength: [1]string{strconv.Itoa(len(body))},
		sha256:        bodySHA256,
		outcome:       outcome,
		resource:      resource,
	}
}
