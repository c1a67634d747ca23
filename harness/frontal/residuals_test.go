package frontal

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// residual is a way nginx answers differently from Caddy that the vhost
// cannot remove. Each is written here once: the differential test allows it
// only where its rule says, counts what it observes, and the report prints
// the text with the count.
type residual struct {
	id, title, text string
	// measured: the differential sends requests that show it; otherwise
	// the text says why this run does not.
	measured bool
}

const (
	residualRepeatedSecret = "R1"
	residualUnreadHeaders  = "R2"
	residualContentLength  = "R3"
	residualFolding        = "R4"
	residualContinue       = "R5"
	residualHTTP09         = "R6"
	residualSizeLimits     = "R9"
	residualMaintenance    = "R11"
)

var residualList = []residual{
	{residualRepeatedSecret, "A repeated X-Challenge-Secret header", "nginx before 1.23 reads the first of two " +
		"X-Challenge-Secret headers; the handler refuses a repeated header. nginx alone therefore serves a call that " +
		"carries the secret twice as if it carried it once; the frontal hands it to Caddy, which refuses it (403), " +
		"except when the frontal refuses the call itself (400 where Caddy answers 403). Only a holder of the secret " +
		"can send it, and Trust Layer sends it once. nginx 1.23 and later join the copies into one value, which the " +
		"gate's pattern does not match: the difference disappears (the tests expect whichever applies).", true},
	{residualUnreadHeaders, "A request refused before its headers are read", "nginx refuses some request lines " +
		"before it reads any header: a target that climbs above the root once decoded (/../x, /%2e%2e/x), %00, " +
		"*, a method in lower case, CONNECT. The gate cannot run, so nginx answers the " +
		"400 body with or without the secret, where Caddy answers 403 without it and 400 with it. With the secret, " +
		"which every Trust Layer call carries, the answers are identical; without it both are refusals that anchor " +
		"nothing.", true},
	{residualContentLength, "Two Content-Length headers", "nginx refuses a request with two Content-Length headers " +
		"(the 400 body once past the gate); Go accepts identical copies, so Caddy answers a GET with " +
		"Content-Length: 0 twice with the resource.", true},
	{residualFolding, "A header folded onto the next line", "nginx refuses obsolete line folding (RFC 9112, " +
		"section 5.2) with the 400 body once past the gate; Go unfolds the header and Caddy answers the resource.", true},
	{residualContinue, "Expect: 100-continue", "nginx sends an interim 100 Continue before its answer; Go sends " +
		"none, since the handler never reads a body. The final answer is the same: an interim response has no " +
		"body and HTTP clients read past it.", true},
	{residualHTTP09, "HTTP/0.9", "A request line without a version is HTTP/0.9, whose answer has neither status line " +
		"nor headers: nginx answers the bare 403 body (no header, hence no secret, reaches it); Go refuses with a " +
		"plain-text 400.", true},
	{"R7", "Constant-time comparison", "nginx compares the secret with a PCRE pattern, byte by byte, and stops at the " +
		"first difference; the handler compares SHA-256 digests in constant time. The timing difference is " +
		"nanoseconds under network jitter of tens of microseconds, for a secret of at least 32 bytes (the gate " +
		"refuses shorter ones); it is not measurable over HTTP, and this run does not try. Keep the secrets long " +
		"and random, and rotate them.", false},
	{"R8", "The tree is read at each request", "nginx alone reads each file from disk when it is asked for. The " +
		"generator checks the whole tree against the manifest, and the vhost names every file of the manifest and " +
		"no other, so an extra file is never served; but a file changed after generation is served changed, where " +
		"Caddy serves the verified bytes from memory and refuses a tampered tree at reload. Keep the tree " +
		"read-only, run proveit verify before each nginx reload, or run nginx as the frontal of Caddy.", false},
	{residualSizeLimits, "Size limits", "Go reads at most 20 KiB of request line and headers together; nginx reads lines of at " +
		"most 20 KiB, 80 KiB in all. Beyond Go's limit Caddy alone closes the connection, in clear or inside TLS (the " +
		"guard drops Go's 431), or, with HTTP/3 switched on, answers quic-go's empty 431 over it (the matrix below); " +
		"nginx answers the 400 body, or serves a request Go would have refused.", true},
	{"R10", "Logs", "At the info and debug levels nginx logs the start of an invalid header line, which may hold the " +
		"secret: keep nginx's error_log at notice or above (its default is error). The access log of the vhost is " +
		"nginx's, which records the request line and never a header.", false},
	{residualMaintenance, "Maintenance", "In maintenance, a request line nginx cannot parse (R2) gets the 400 body, " +
		"where Caddy answers the 503 body to those Go can parse.", true},
	{"R12", "Protocols", "The vhost serves HTTP/1.x, over TLS or not; the generator refuses http2 on its listen " +
		"directives. The shipped Caddyfile serves HTTP/1.x too over TLS; switched on (CORPUS_PROTOCOLS), HTTP/2 " +
		"and HTTP/3 answer requests no HTTP library sends with replies of the protocol stack's own (the matrix " +
		"below). No proof records the protocol.", false},
}

// residualCounter counts the residuals observed in this run.
type residualCounter struct {
	mu sync.Mutex
	n  map[string]int
}

var residuals = &residualCounter{n: map[string]int{}}

func (r *residualCounter) observe(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n[id]++
}

func (r *residualCounter) counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	counts := make(map[string]int, len(r.n))
	for id, n := range r.n {
		counts[id] = n
	}
	return counts
}

// nginxJoinsRepeatedHeaders reports whether nginx is 1.23 or later, where
// $http_x_challenge_secret joins repeated headers (R1 does not apply).
func nginxJoinsRepeatedHeaders(t *testing.T) bool {
	version := servertest.NginxVersion(t)
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		t.Fatalf("nginx version %q: %v", version, err)
	}
	return major > 1 || major == 1 && minor >= 23
}

// The order of the topologies in every answer slice (startTopologies').
const (
	atCaddy = iota
	atFrontal
	atAlone
)

var topologyNames = []string{caddyAlone, nginxFrontal, nginxAlone}

// differential judges what the three topologies answered to each call.
type differential struct {
	bodies     *contractBodies
	canary     string
	nginxJoins bool

	identical   int            // variants answered the same by all three
	beforeCaddy map[string]int // answers Caddy alone wrote before its handler, by kind
}

var (
	repeatedContentLength = regexp.MustCompile(`(?i)content-length:[^\r]*\r\ncontent-length:`)
	foldedHeader          = regexp.MustCompile(`\r\n[ \t]`)
)

// judge returns what is wrong with the answers to one call. Where Caddy
// answers with a contract body, nginx must answer the same status and bytes,
// in front of Caddy and alone, but for a residual whose rule holds; where
// Caddy refuses before its handler, or closes, both nginx topologies must
// answer a contract body or close.
func (d *differential) judge(r exchanged) []string {
	var problems []string
	for _, v := range r.call.variants {
		answers := r.answers[v.name]
		for i, a := range answers {
			if strings.Contains(string(a.Body)+string(a.Raw), d.canary) {
				problems = append(problems, fmt.Sprintf("[%s] %s: the canary beside the tree came back", v.name, topologyNames[i]))
			}
			if a.Interim && i != atCaddy {
				residuals.observe(residualContinue)
			}
		}
		caddy, frontal, alone := answers[atCaddy], answers[atFrontal], answers[atAlone]
		if caddy.key() == frontal.key() && frontal.key() == alone.key() {
			d.identical++
			if err := d.bodies.contractProblem(caddy, r.call.method); err != nil {
				problems = append(problems, fmt.Sprintf("[%s] all three: %v", v.name, err))
			}
			continue
		}
		if kind := refusedBeforeHandler(caddy); kind != "" || caddy.Closed {
			if kind != "" {
				d.beforeCaddy[kind]++
			}
			if caddy.Status == 431 {
				residuals.observe(residualSizeLimits)
			}
			for i, a := range []answer{frontal, alone} {
				if err := d.nginxContract(r, a); err != nil {
					problems = append(problems, fmt.Sprintf("[%s] %s, Caddy refused before its handler: %v", v.name, topologyNames[atFrontal+i], err))
				}
			}
			continue
		}
		if err := d.bodies.contractProblem(caddy, r.call.method); err != nil {
			problems = append(problems, fmt.Sprintf("[%s] %s: %v", v.name, caddyAlone, err))
			continue
		}
		if id, ok := d.residual(r, v, answers); ok {
			residuals.observe(id)
			continue
		}
		problems = append(problems, fmt.Sprintf("[%s] Caddy %s, nginx → Caddy %s, nginx alone %s", v.name, caddy, frontal, alone))
	}
	return problems
}

func (d *differential) nginxContract(r exchanged, a answer) error {
	if d.bodies.isHTTP09Refusal(r.call, a) {
		residuals.observe(residualHTTP09)
		return nil
	}
	return d.bodies.contractProblem(a, r.call.method)
}

// residual finds the documented difference that explains answers Caddy and
// nginx disagree on, by its rule: the shape of the request and what each
// side must then answer.
func (d *differential) residual(r exchanged, v variant, answers []answer) (string, bool) {
	caddy, frontal, alone := answers[atCaddy], answers[atFrontal], answers[atAlone]
	refused := d.key(400)
	raw := r.call.raw
	switch {
	case v == secretTwice && !d.nginxJoins:
		single := r.answers[withSecret.name]
		return residualRepeatedSecret, alone.key() == single[atAlone].key() &&
			(frontal.key() == caddy.key() || frontal.key() == single[atFrontal].key())
	case v == noSecret:
		with := r.answers[withSecret.name]
		return residualUnreadHeaders, caddy.key() == d.key(403) && with[atCaddy].key() == refused &&
			frontal.key() == refused && alone.key() == refused &&
			with[atFrontal].key() == refused && with[atAlone].key() == refused
	case repeatedContentLength.MatchString(raw):
		return residualContentLength, frontal.key() == refused && alone.key() == refused
	case foldedHeader.MatchString(raw):
		return residualFolding, frontal.key() == refused && alone.key() == refused
	}
	return "", false
}

// key is the answer key of a fixed body.
func (d *differential) key(status int) string {
	return answer{Status: status, Body: d.bodies.fixed[status]}.key()
}
