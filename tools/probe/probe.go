// Package probe checks a live corpus server, this project's or any other,
// against the HTTP contract and the manifest: every row of the contract's
// decision order, every header on every response, and every entry of the
// manifest byte for byte and hash for hash, over real HTTP with request
// targets sent exactly as written.
package probe

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// Check is one request and the answer the contract requires for it.
type Check struct {
	Name    string
	Request Request
	Expect  Expect
	// Residual, when set, is another answer a documented topology gives
	// instead (docs/reliability.md): the check still fails, and its result
	// names the residual.
	Residual *Residual
}

// Residual is a departure from the contract that docs/reliability.md
// documents for one topology, with the answer that topology gives.
type Residual struct {
	ID     string // as docs/reliability.md numbers it: "R1"
	Why    string // the topology and why, in a few words
	Expect Expect
}

// Expect is a required answer: a status and a body known by its hashes.
type Expect struct {
	Status       int
	Path         string // the manifest entry, or computed absent body, that must come back
	BytesSHA256  string
	ResponseHash string
	HeadersOnly  bool // a HEAD request: the body is never sent
}

// Options shape the catalogue to the server under test.
type Options struct {
	// Secrets to use; every one of them must open the gate.
	Secrets []string
	// Maintenance: the server is switched off, every call past the gate must get the 503 body.
	Maintenance bool
	// SkipResources leaves out the per-entry checks of the manifest.
	SkipResources bool
	// Protocols the server serves besides HTTP/1.1 (HTTP10, HTTP2, HTTP3):
	// the contract's rows are checked over each of them too.
	Protocols []string
}

// unknownHost is a Host no corpus server serves.
const unknownHost = "unknown-host.invalid"

// noHost, as a Request's Host, sends no Host header at all: HTTP/1.0 allows it.
const noHost = "\x00"

// Catalogue lists the checks for a server holding manifest m.
func Catalogue(m *manifest.Manifest, o Options) ([]Check, error) {
	return CatalogueOf([]*manifest.Manifest{m}, o)
}

// CatalogueOf lists the checks for a server holding the corpora of several
// tracks at one origin, one manifest each: the contract's rows once, on the
// first manifest's rules resource, and every entry of every manifest.
func CatalogueOf(manifests []*manifest.Manifest, o Options) ([]Check, error) {
	b, err := newBuilder(manifests, o)
	if err != nil {
		return nil, err
	}
	// The gate first: the server checks it before anything else.
	b.gate()
	b.malformed()
	b.ignoredHeaders()
	b.outsideCollections()
	b.otherProtocols()
	b.absentReferences()
	if !o.SkipResources {
		b.resources()
	}
	if len(b.problems) > 0 {
		return nil, fmt.Errorf("catalogue: %s", strings.Join(b.problems, "; "))
	}
	return b.checks, nil
}

// builder lists a catalogue, section after section, each check's answer
// taken from the manifests: a path none of them knows is a problem kept
// for the end, so that one error names every such path.
type builder struct {
	manifests []*manifest.Manifest
	tracks    []*corpus.Track // each manifest's, in the same order
	o         Options
	secret    string // the first of o.Secrets, sent by every authenticated check
	sample    string // the first track's rules resource, the target of the contract's rows

	checks   []Check
	problems []string
}

// newBuilder checks what CatalogueOf is given before anything is listed:
// the manifests' tracks, a secret, and the protocols.
func newBuilder(manifests []*manifest.Manifest, o Options) (*builder, error) {
	if len(manifests) == 0 {
		return nil, fmt.Errorf("no manifest given")
	}
	var tracks []*corpus.Track
	for _, m := range manifests {
		t, err := corpus.TrackNamed(m.Track)
		if err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		tracks = append(tracks, t)
	}
	if len(o.Secrets) == 0 {
		return nil, fmt.Errorf("no secret given")
	}
	for _, proto := range o.Protocols {
		if proto != HTTP10 && proto != HTTP2 && proto != HTTP3 {
			return nil, fmt.Errorf("protocol %q: want %s, %s or %s", proto, HTTP10, HTTP2, HTTP3)
		}
	}
	return &builder{manifests: manifests, tracks: tracks, o: o, secret: o.Secrets[0], sample: tracks[0].Rules}, nil
}

// expect is the answer the contract requires at path: its entry in the
// first manifest that lists it, or else, for a reference, the absent body
// the server computes.
func (b *builder) expect(path string) (Expect, error) {
	for _, m := range b.manifests {
		if e, ok := m.Lookup(path); ok {
			return Expect{Status: e.Status, Path: path, BytesSHA256: e.BytesSHA256, ResponseHash: e.ResponseHash}, nil
		}
	}
	if !corpus.IsReference(path) {
		return Expect{}, fmt.Errorf("manifest has no entry for %s", path)
	}
	body := corpus.AbsentBody(path)
	hash, err := anchor.ResponseHash(body)
	return Expect{Status: http.StatusOK, Path: path, BytesSHA256: anchor.SHA256(body), ResponseHash: hash}, err
}

// add lists a check of req, answered with the body at path; one past the
// gate (authenticated) gets the 503 body instead on a server in
// maintenance.
func (b *builder) add(name string, req Request, path string, authenticated bool) {
	e, ok := b.answer(path, authenticated)
	if !ok {
		return
	}
	e.HeadersOnly = req.Method == http.MethodHead
	b.checks = append(b.checks, Check{Name: name, Request: req, Expect: e})
}

// answer is what a check expects of the body at path, the 503 body instead
// past the gate of a server in maintenance; a body that cannot be expected
// is a problem of the probe's build.
func (b *builder) answer(path string, authenticated bool) (Expect, bool) {
	if b.o.Maintenance && authenticated {
		path = corpus.SystemUnavailable
	}
	e, err := b.expect(path)
	if err != nil {
		b.problems = append(b.problems, err.Error())
		return e, false
	}
	return e, true
}

// residual gives the check listed last the documented answer of one
// topology (docs/reliability.md): the body at path, as add would expect it.
func (b *builder) residual(id, why, path string, authenticated bool) {
	e, ok := b.answer(path, authenticated)
	if !ok {
		return
	}
	last := &b.checks[len(b.checks)-1]
	e.HeadersOnly = last.Expect.HeadersOnly
	last.Residual = &Residual{ID: id, Why: why, Expect: e}
}

// get is a GET of target with the secret, and header besides.
func (b *builder) get(target string, header ...[2]string) Request {
	return Request{Method: http.MethodGet, Target: target, Header: append([][2]string{{corpus.SecretHeader, b.secret}}, header...)}
}

// gate lists the gate's checks: every way of not sending the secret is
// refused, even before a malformed target, and every secret opens.
func (b *builder) gate() {
	sample, secret := b.sample, b.secret
	b.add("gate: no secret", Request{Method: http.MethodGet, Target: sample}, corpus.SystemForbidden, false)
	b.add("gate: wrong secret", Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, strings.Repeat("x", 40)}}}, corpus.SystemForbidden, false)
	b.add("gate: empty secret", Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, ""}}}, corpus.SystemForbidden, false)
	b.add("gate: secret twice", Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}, {corpus.SecretHeader, secret}}}, corpus.SystemForbidden, false)
	b.residual("R1", "nginx alone, before 1.23, reads the first of the two headers and serves the call", sample, true)
	b.add("gate: before a malformed target", Request{Method: http.MethodPost, Target: "/x?y", Body: "{}"}, corpus.SystemForbidden, false)
	b.add("gate: no secret on an absent reference", Request{Method: http.MethodGet, Target: "/agrements/SONDE-0"}, corpus.SystemForbidden, false)
	for i, s := range b.o.Secrets {
		b.add(fmt.Sprintf("gate: secret slot %d opens", i), Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, s}}}, sample, true)
	}
}

// malformed lists the requests past the gate the contract answers 400:
// targets that are not a canonical path as written, methods other than
// GET, a body, HEAD, and an unknown Host.
func (b *builder) malformed() {
	sample, secret := b.sample, b.secret
	for _, row := range []struct{ name, target string }{
		{"query", sample + "?a=1"},
		{"empty query", sample + "?"},
		{"fragment", sample + "#x"},
		{"percent-encoded slash", "/agrements%2FAGR-4417"},
		{"percent-encoded dot-dot", "/agrements/%2e%2e/referentiel"},
		{"percent-encoded letter", "/r%65ferentiel"},
		{"double slash", "//referentiel"},
		{"dot segment", "/./referentiel"},
		{"dot-dot segment", "/agrements/../referentiel"},
		{"trailing slash", sample + "/"},
		{"root", "/"},
		{"non-ASCII", "/entit\xc3\xa9s/ENT-1"},
		{"absolute form", "http://corpus.arkforge.tech" + sample},
		{"asterisk", "*"},
		{"backslash", "/agrements\\AGR-4417"},
	} {
		b.add("400: "+row.name, b.get(row.target), corpus.SystemBadRequest, true)
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodPatch, "PROPFIND"} {
		b.add("400: method "+method, Request{Method: method, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}}, corpus.SystemBadRequest, true)
	}
	b.add("400: POST with a body", Request{Method: http.MethodPost, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}, Body: "{}"}, corpus.SystemBadRequest, true)
	b.add("400: GET with a body", Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}, Body: "{}"}, corpus.SystemBadRequest, true)
	b.add("400: HEAD", Request{Method: http.MethodHead, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}}, corpus.SystemBadRequest, true)
	unknown := b.get(sample)
	unknown.Host = unknownHost
	b.add("400: unknown Host", unknown, corpus.SystemBadRequest, true)
}

// ignoredHeaders lists request headers that must change nothing: the
// answer is always the whole body, fresh.
func (b *builder) ignoredHeaders() {
	for _, row := range []struct {
		name   string
		header [2]string
	}{
		{"Range", [2]string{"Range", "bytes=0-9"}},
		{"If-None-Match", [2]string{"If-None-Match", "*"}},
		{"If-Modified-Since", [2]string{"If-Modified-Since", "Mon, 30 Nov 2026 00:00:00 GMT"}},
		{"Accept-Encoding gzip", [2]string{"Accept-Encoding", "gzip, br, zstd"}},
		{"Cache-Control", [2]string{"Cache-Control", "max-age=3600"}},
	} {
		b.add("ignored: "+row.name, b.get(b.sample, row.header), b.sample, true)
	}
}

// outsideCollections lists well-formed paths that are no resource, a
// fixed body's among them, all answered 404.
func (b *builder) outsideCollections() {
	for _, target := range []string{"/inconnu", "/agrements", "/listes/agrees", "/listes/autres/X", corpus.SystemForbidden,
		"/referentiel/x", "/agrements/-x", "/agrements/" + strings.Repeat("A", 65), "/agrements/A/B", "/" + strings.Repeat("a/", 2000) + "z"} {
		b.add("404: "+shorten(target), b.get(target), corpus.SystemNotFound, true)
	}
}

// otherProtocols lists a few of the rows above over every other protocol
// served, and what those protocols let a caller send that HTTP/1.1 does
// not.
func (b *builder) otherProtocols() {
	sample, secret := b.sample, b.secret
	probeAbsent := "/" + b.tracks[0].Collections[0] + "/SONDE-0"
	for _, proto := range b.o.Protocols {
		over := func(req Request) Request { req.Proto = proto; return req }
		b.add(proto+": gate", over(Request{Method: http.MethodGet, Target: sample}), corpus.SystemForbidden, false)
		b.add(proto+": resource", over(b.get(sample)), sample, true)
		b.add(proto+": absent reference", over(b.get(probeAbsent)), probeAbsent, true)
		b.add(proto+": 404", over(b.get("/inconnu")), corpus.SystemNotFound, true)
		b.add(proto+": 400 query", over(b.get(sample+"?a=1")), corpus.SystemBadRequest, true)
		b.add(proto+": 400 OPTIONS *", over(Request{Method: http.MethodOptions, Target: "*", Header: [][2]string{{corpus.SecretHeader, secret}}}), corpus.SystemBadRequest, true)
		b.add(proto+": 400 POST with a body", over(Request{Method: http.MethodPost, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}, Body: "{}"}), corpus.SystemBadRequest, true)
		b.add(proto+": 400 unknown Host", over(Request{Method: http.MethodGet, Target: sample, Host: unknownHost, Header: [][2]string{{corpus.SecretHeader, secret}}}), corpus.SystemBadRequest, true)
		if proto == HTTP10 {
			b.add(proto+": no Host", Request{Proto: proto, Method: http.MethodGet, Target: sample, Host: noHost, Header: [][2]string{{corpus.SecretHeader, secret}}}, corpus.SystemBadRequest, true)
		}
	}
}

// absentReferences lists a reference no manifest lists on every
// collection of the tracks served: the server must compute its body.
func (b *builder) absentReferences() {
	for _, t := range b.tracks {
		for _, c := range t.Collections {
			b.add("absent: unlisted in "+c, b.get("/"+c+"/SONDE-ABSENTE.0_1"), "/"+c+"/SONDE-ABSENTE.0_1", true)
		}
	}
}

// resources lists every entry of each manifest served at its path; a
// fixed body never is.
func (b *builder) resources() {
	for _, m := range b.manifests {
		for _, e := range m.Resources {
			if e.Kind != manifest.System {
				b.add(string(e.Kind)+": "+e.Path, b.get(e.Path), e.Path, true)
			}
		}
	}
}

// shorten quotes the start of a body a server sent, on one line of
// printable text whatever its bytes.
func shorten(s string) string {
	if len(s) > 60 {
		return strconv.QuoteToASCII(s[:40]) + "...(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return strconv.QuoteToASCII(s)
}

// Result is the outcome of one check; Problems is empty when it passed.
// Residual is set when it failed with exactly the answer of the check's
// documented residual.
type Result struct {
	Check    Check
	Problems []string
	Residual *Residual
}

// Run sends every check and verifies each answer.
func Run(ctx context.Context, c *Client, checks []Check) []Result {
	results := make([]Result, 0, len(checks))
	for _, check := range checks {
		results = append(results, c.check(ctx, check))
	}
	return results
}

// check sends one check and says what is wrong with the answer.
func (c *Client) check(ctx context.Context, check Check) Result {
	resp, err := c.Do(ctx, check.Request)
	if err != nil {
		return Result{Check: check, Problems: []string{"request failed: " + err.Error()}}
	}
	r := Result{Check: check, Problems: Problems(check.Expect, resp)}
	if len(r.Problems) > 0 && check.Residual != nil && len(Problems(check.Residual.Expect, resp)) == 0 {
		r.Residual = check.Residual
	}
	return r
}

// Problems lists how a response departs from what the contract requires.
func Problems(e Expect, resp *Response) []string {
	var problems []string
	if resp.Status != e.Status {
		problems = append(problems, fmt.Sprintf("status %d, want %d", resp.Status, e.Status))
	}
	problems = append(problems, HeaderProblems(resp.Header)...)
	if e.HeadersOnly {
		if len(resp.Body) != 0 {
			problems = append(problems, "HEAD answered with a body")
		}
		return problems
	}
	if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(len(resp.Body)) {
		problems = append(problems, fmt.Sprintf("Content-Length %q for %d bytes", got, len(resp.Body)))
	}
	if got := anchor.SHA256(resp.Body); got != e.BytesSHA256 {
		problems = append(problems, fmt.Sprintf("body is not the one of %s (sha256 %s, want %s): %s", e.Path, got, e.BytesSHA256, shorten(string(resp.Body))))
		return problems
	}
	if got, err := anchor.ResponseHash(resp.Body); err != nil || got != e.ResponseHash {
		problems = append(problems, fmt.Sprintf("response_hash %s (%v), want %s", got, err, e.ResponseHash))
	}
	return problems
}

// contractHeaders must be on every response, with exactly these values.
var contractHeaders = [][2]string{
	{"Content-Type", "application/json; charset=utf-8"},
	{"Cache-Control", "no-store, no-cache, must-revalidate, max-age=0"},
	{"Pragma", "no-cache"},
	{"Expires", "0"},
	{"X-Content-Type-Options", "nosniff"},
}

// HeaderProblems checks the headers the contract requires and forbids.
func HeaderProblems(h http.Header) []string {
	var problems []string
	for _, want := range contractHeaders {
		if got := h.Values(want[0]); len(got) != 1 || got[0] != want[1] {
			problems = append(problems, fmt.Sprintf("header %s %q, want %q", want[0], got, want[1]))
		}
	}
	for _, name := range []string{"ETag", "Last-Modified", "Accept-Ranges", "Content-Encoding", "Content-Range"} {
		if got := h.Values(name); len(got) > 0 {
			problems = append(problems, fmt.Sprintf("forbidden header %s: %q", name, got))
		}
	}
	if len(h.Values("Content-Length")) != 1 {
		problems = append(problems, "no single Content-Length")
	}
	return problems
}
