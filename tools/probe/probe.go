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

// UnknownHost is a Host no corpus server serves.
const UnknownHost = "unknown-host.invalid"

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
	expect := func(path string) (Expect, error) {
		for _, m := range manifests {
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
	var checks []Check
	var problems []string
	add := func(name string, req Request, path string, authenticated bool) {
		if o.Maintenance && authenticated {
			path = corpus.SystemUnavailable
		}
		e, err := expect(path)
		if err != nil {
			problems = append(problems, err.Error())
			return
		}
		e.HeadersOnly = req.Method == http.MethodHead
		checks = append(checks, Check{Name: name, Request: req, Expect: e})
	}
	if len(o.Secrets) == 0 {
		return nil, fmt.Errorf("no secret given")
	}
	for _, proto := range o.Protocols {
		if proto != HTTP10 && proto != HTTP2 && proto != HTTP3 {
			return nil, fmt.Errorf("protocol %q: want %s, %s or %s", proto, HTTP10, HTTP2, HTTP3)
		}
	}
	secret := o.Secrets[0]
	get := func(target string, header ...[2]string) Request {
		return Request{Method: http.MethodGet, Target: target, Header: append([][2]string{{corpus.SecretHeader, secret}}, header...)}
	}
	sample := tracks[0].Rules
	probeAbsent := "/" + tracks[0].Collections[0] + "/SONDE-0"

	// 1. The gate, before anything else.
	add("gate: no secret", Request{Method: http.MethodGet, Target: sample}, corpus.SystemForbidden, false)
	add("gate: wrong secret", Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, strings.Repeat("x", 40)}}}, corpus.SystemForbidden, false)
	add("gate: empty secret", Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, ""}}}, corpus.SystemForbidden, false)
	add("gate: secret twice", Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}, {corpus.SecretHeader, secret}}}, corpus.SystemForbidden, false)
	add("gate: before a malformed target", Request{Method: http.MethodPost, Target: "/x?y", Body: "{}"}, corpus.SystemForbidden, false)
	add("gate: no secret on an absent reference", Request{Method: http.MethodGet, Target: "/agrements/SONDE-0"}, corpus.SystemForbidden, false)
	for i, s := range o.Secrets {
		add(fmt.Sprintf("gate: secret slot %d opens", i), Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, s}}}, sample, true)
	}

	// 2. Malformed or unsupported requests.
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
		add("400: "+row.name, get(row.target), corpus.SystemBadRequest, true)
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodPatch, "PROPFIND"} {
		add("400: method "+method, Request{Method: method, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}}, corpus.SystemBadRequest, true)
	}
	add("400: POST with a body", Request{Method: http.MethodPost, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}, Body: "{}"}, corpus.SystemBadRequest, true)
	add("400: GET with a body", Request{Method: http.MethodGet, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}, Body: "{}"}, corpus.SystemBadRequest, true)
	add("400: HEAD", Request{Method: http.MethodHead, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}}, corpus.SystemBadRequest, true)
	unknownHost := get(sample)
	unknownHost.Host = UnknownHost
	add("400: unknown Host", unknownHost, corpus.SystemBadRequest, true)

	// 3. Headers that must change nothing.
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
		add("ignored: "+row.name, get(sample, row.header), sample, true)
	}

	// 4. Outside every collection.
	for _, target := range []string{"/inconnu", "/agrements", "/listes/agrees", "/listes/autres/X", corpus.SystemForbidden,
		"/referentiel/x", "/agrements/-x", "/agrements/" + strings.Repeat("A", 65), "/agrements/A/B", "/" + strings.Repeat("a/", 2000) + "z"} {
		add("404: "+shorten(target), get(target), corpus.SystemNotFound, true)
	}

	// 5. The same rows over every other protocol served, and what those
	// protocols let a caller send that HTTP/1.1 does not.
	for _, proto := range o.Protocols {
		over := func(req Request) Request { req.Proto = proto; return req }
		add(proto+": gate", over(Request{Method: http.MethodGet, Target: sample}), corpus.SystemForbidden, false)
		add(proto+": resource", over(get(sample)), sample, true)
		add(proto+": absent reference", over(get(probeAbsent)), probeAbsent, true)
		add(proto+": 404", over(get("/inconnu")), corpus.SystemNotFound, true)
		add(proto+": 400 query", over(get(sample+"?a=1")), corpus.SystemBadRequest, true)
		add(proto+": 400 OPTIONS *", over(Request{Method: http.MethodOptions, Target: "*", Header: [][2]string{{corpus.SecretHeader, secret}}}), corpus.SystemBadRequest, true)
		add(proto+": 400 POST with a body", over(Request{Method: http.MethodPost, Target: sample, Header: [][2]string{{corpus.SecretHeader, secret}}, Body: "{}"}), corpus.SystemBadRequest, true)
		add(proto+": 400 unknown Host", over(Request{Method: http.MethodGet, Target: sample, Host: UnknownHost, Header: [][2]string{{corpus.SecretHeader, secret}}}), corpus.SystemBadRequest, true)
		if proto == HTTP10 {
			add(proto+": no Host", Request{Proto: proto, Method: http.MethodGet, Target: sample, Host: noHost, Header: [][2]string{{corpus.SecretHeader, secret}}}, corpus.SystemBadRequest, true)
		}
	}

	// 6. Absent references on every collection of the tracks served, and every
	// entry of each manifest.
	for _, t := range tracks {
		for _, c := range t.Collections {
			add("absent: unlisted in "+c, get("/"+c+"/SONDE-ABSENTE.0_1"), "/"+c+"/SONDE-ABSENTE.0_1", true)
		}
	}
	if !o.SkipResources {
		for _, m := range manifests {
			for _, e := range m.Resources {
				if e.Kind != manifest.System {
					add(string(e.Kind)+": "+e.Path, get(e.Path), e.Path, true)
				}
			}
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("catalogue: %s", strings.Join(problems, "; "))
	}
	return checks, nil
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:40] + "...(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return s
}

// Result is the outcome of one check; Problems is empty when it passed.
type Result struct {
	Check    Check
	Problems []string
}

// Run sends every check and verifies each answer.
func Run(ctx context.Context, c *Client, checks []Check) []Result {
	results := make([]Result, 0, len(checks))
	for _, check := range checks {
		results = append(results, Result{Check: check, Problems: c.Check(ctx, check)})
	}
	return results
}

// Check sends one check and returns what is wrong with the answer.
func (c *Client) Check(ctx context.Context, check Check) []string {
	resp, err := c.Do(ctx, check.Request)
	if err != nil {
		return []string{"request failed: " + err.Error()}
	}
	return Problems(check.Expect, resp)
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
