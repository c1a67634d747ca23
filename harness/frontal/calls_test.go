package frontal

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
)

// call is one request of the differential, as raw bytes with placeholders:
// ⟨host⟩ is the server's host:port, ⟨auth⟩ the secret header line(s) of the
// variant, ⟨secret⟩ and ⟨SECRET⟩ the secret itself and upper-cased, for calls
// that place it themselves.
type call struct {
	name     string
	method   string // how to read the response: a HEAD answer has no body
	raw      string
	variants []variant
	// misplaced: the call carries the secret where no server looks for it
	// (another header's name, a folded line). Such calls use a secret of
	// their own: a server may log what it does not know to be a secret.
	misplaced bool
}

// variant is how a call carries the secret.
type variant struct {
	name string
	auth string // with ⟨secret⟩ in it
}

var (
	withSecret   = variant{"secret", "X-Challenge-Secret: ⟨secret⟩\r\n"}
	noSecret     = variant{"no secret", ""}
	secretTwice  = variant{"secret twice", "X-Challenge-Secret: ⟨secret⟩\r\nX-Challenge-Secret: ⟨secret⟩\r\n"}
	asWritten    = variant{"as written", ""}
	bothVariants = []variant{withSecret, noSecret}
)

// render writes the raw bytes of a call in a variant, for one server.
func (c call) render(v variant, host, secret string) []byte {
	raw := strings.ReplaceAll(c.raw, "⟨auth⟩", v.auth)
	return []byte(strings.NewReplacer("⟨host⟩", host, "⟨secret⟩", secret, "⟨SECRET⟩", strings.ToUpper(secret)).Replace(raw))
}

// request writes a request line, Host, the secret of the variant, extra
// header lines (each ending in CRLF), Connection: close and a body.
func request(method, target, version string, extra string, body string) string {
	return method + " " + target + " " + version + "\r\nHost: ⟨host⟩\r\n⟨auth⟩" + extra + "Connection: close\r\n\r\n" + body
}

func get(name, target string, extra ...string) call {
	return call{name: name, method: http.MethodGet, raw: request("GET", target, "HTTP/1.1", strings.Join(extra, ""), ""), variants: bothVariants}
}

// resourceCalls asks for every path of the manifest, the fixed bodies' too.
func resourceCalls(m *manifest.Manifest) []call {
	var calls []call
	for _, e := range m.Resources {
		c := get(string(e.Kind)+" "+e.Path, e.Path)
		if e.Path == corpus.Referentiel {
			c.variants = []variant{withSecret, noSecret, secretTwice}
		}
		calls = append(calls, c)
	}
	return calls
}

// absentCalls asks for references with no file, at the edges of the id
// grammar, in every collection.
func absentCalls() []call {
	ids := []string{"A", "Z9", "ABSENT-0", "x.y_z-1", "0", strings.Repeat("a", 64), strings.Repeat("a", 65),
		"-x", ".x", "_x", "x~y", "x..y", "x.", "AGR-4417.json", "é", "x:y", "x@y", "x!"}
	var calls []call
	for _, c := range corpus.Collections {
		for _, id := range ids {
			calls = append(calls, get("absent /"+c+"/"+id, "/"+c+"/"+id))
		}
	}
	return calls
}

// randomCalls draws targets from the characters the grammar turns on, under
// the collections and the resources of the manifest.
func randomCalls(m *manifest.Manifest, n int) []call {
	const alphabet = "/./..%?#aZ09-_~!$&'()*+,;=:@AGR"
	r := rand.New(rand.NewPCG(4, 17))
	calls := make([]call, n)
	for i := range calls {
		var b strings.Builder
		switch r.IntN(3) {
		case 0:
			b.WriteString("/" + corpus.Collections[r.IntN(len(corpus.Collections))] + "/")
		case 1:
			b.WriteString(m.Resources[r.IntN(len(m.Resources))].Path)
		default:
			b.WriteString("/")
		}
		for range r.IntN(10) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		calls[i] = get(fmt.Sprintf("random %q", b.String()), b.String())
	}
	return calls
}

// hostileTargets try to read outside the tree, or past the grammar, through
// traversal, encodings, other forms of target and sheer size. The canary
// files sit beside the tree: canary.json, canary, conformite.json and
// referentiel.json.
var hostileTargets = []string{
	"/../canary.json", "/../canary", "/../conformite.json", "/../referentiel.json", "/agrements/../../canary.json",
	"/agrements/../../../../../../../../etc/passwd", "/referentiel/../../canary.json", "/./../canary.json",
	"/%2e%2e/canary.json", "/%2E%2E/canary.json", "/%2e./canary.json", "/.%2e/canary.json",
	"/agrements/%2e%2e/%2e%2e/canary.json", "/..%2fcanary.json", "/..%2Fcanary.json", "/agrements/..%2f..%2fcanary.json",
	"/%2e%2e%2fcanary.json", "/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/..%5ccanary.json", "/..%5c..%5cetc%5cpasswd",
	"/agrements\\..\\..\\canary.json", "/%252e%252e/canary.json", "/%252e%252e%252fcanary.json",
	"/%c0%ae%c0%ae/canary.json", "/%c0%ae%c0%ae%c0%afcanary.json", "/%e0%80%ae%e0%80%ae/canary.json",
	"/..;/canary.json", "/agrements/..;/..;/canary.json", "/;/../canary.json", "/.;/canary.json",
	"/referentiel%00", "/referentiel%00.json", "/referentiel%00/../../canary.json", "/%00/../canary.json",
	"/canary.json", "/canary", "/conformite", "/conformite/referentiel", "/referentiel.json", "/agrements/AGR-4417.json",
	"/_systeme/403.json", "/_systeme/403", "/_systeme/503", "/_systeme/../canary.json", "/_systeme/../../canary.json",
	"/agrements/AGR-4417/..", "/agrements/AGR-4417/.", "/agrements/AGR-4417/../../canary", "/agrements/AGR-4417/",
	"/%2e/canary.json", "/%u002e%u002e/canary.json", "/\xef\xbc\x8e\xef\xbc\x8e/canary.json",
	"/agrements/AGR-4417%2f..%2f..%2fcanary", "/agrements/AGR-4417;x", "/agrements/AGR-4417%20",
	"/agrements/AGR-4417%0d%0aX-Injected:%20yes", "/agrements/AGR-4417%0aSet-Cookie:%20x=y",
	"http://127.0.0.1/../canary.json", "http://corpus.arkforge.tech/referentiel", "http://evil.example/referentiel",
	"https://corpus.arkforge.tech/referentiel", "file:///etc/passwd", "//evil.example/referentiel", "//canary.json",
	"/agrements/AGR-4417?../../canary.json", "/agrements/AGR-4417#/../../canary.json", "/agrements/AGR-4417?", "/?",
	"/~root", "/agrements/~", "/agrements/AGR-4417.", "/agrements/.AGR", "/agrements/..AGR", "/agrements/...",
	"/agrements/*", "/*", "*", "/agrements/%41GR-4417", "/%61grements/AGR-4417", "/AGREMENTS/AGR-4417",
	"/Agrements/AGR-4417", "/referentiel\\", "/referentiel%", "/referentiel%2", "/referentiel%zz", "/referentiel%%",
	"/referentiel%2F", "/entit\xc3\xa9s/ENT-1", "/referentiel\xff", "/referentiel\xc0\xae", "/referentiel\x7f",
	"/referentiel\x1b[0m", "/referentiel$", "/referentiel${host}", "/referentiel$request_uri",
	"/listes/agrees/../agrees/domiciliation", "/listes//agrees/domiciliation", "/listes/agrees/",
	"/" + strings.Repeat("a", 10000), "/agrements/" + strings.Repeat("A", 20000),
	"/" + strings.Repeat("a/", 3000) + "z", "/" + strings.Repeat("../", 500) + "canary.json",
	"/" + strings.Repeat("%2e%2e/", 300) + "canary.json",
}

// hostileCalls are the hostile targets, and hostile headers, methods and
// request lines on ordinary targets.
func hostileCalls() []call {
	var calls []call
	for _, target := range hostileTargets {
		calls = append(calls, get(fmt.Sprintf("target %q", shorten([]byte(target))), target))
	}
	const ref = corpus.Referentiel
	headers := []struct{ name, lines string }{
		{"X-Original-URL", "X-Original-URL: /../canary.json\r\n"},
		{"X-Rewrite-URL", "X-Rewrite-URL: /../canary.json\r\n"},
		{"X-Forwarded-For", "X-Forwarded-For: 127.0.0.1\r\n"},
		{"X-Forwarded-Host", "X-Forwarded-Host: evil.example\r\n"},
		{"X-Forwarded-Proto", "X-Forwarded-Proto: https\r\n"},
		{"Range", "Range: bytes=0-9\r\n"},
		{"multiple ranges", "Range: bytes=0-1,5-6,-3\r\n"},
		{"If-None-Match *", "If-None-Match: *\r\n"},
		{"If-Match", "If-Match: \"x\"\r\n"},
		{"If-Modified-Since", "If-Modified-Since: Mon, 30 Nov 2099 00:00:00 GMT\r\n"},
		{"If-Unmodified-Since", "If-Unmodified-Since: Mon, 01 Jan 2001 00:00:00 GMT\r\n"},
		{"If-Range", "If-Range: \"x\"\r\nRange: bytes=0-9\r\n"},
		{"Accept-Encoding", "Accept-Encoding: gzip, deflate, br, zstd\r\n"},
		{"Expect", "Expect: 100-continue\r\n"},
		{"Content-Length 0", "Content-Length: 0\r\n"},
		{"Content-Length 00", "Content-Length: 00\r\n"},
		{"Content-Length twice", "Content-Length: 0\r\nContent-Length: 0\r\n"},
		{"Content-Length 5 and no body", "Content-Length: 5\r\n"},
		{"Content-Length of a gigabyte", "Content-Length: 1000000000\r\n"},
		{"Content-Length negative", "Content-Length: -1\r\n"},
		{"chunked, empty", "Transfer-Encoding: chunked\r\n"},
		{"Transfer-Encoding gzip", "Transfer-Encoding: gzip\r\n"},
		{"Transfer-Encoding and Content-Length", "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n"},
		{"h2c upgrade", "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"},
		{"websocket upgrade", "Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"},
		{"Host twice", "Host: evil.example\r\n"},
		{"header name with a space", "X-Foo : bar\r\n"},
		{"header name with an underscore", "X_Foo: bar\r\n"},
		{"obsolete line folding", "X-Foo: a\r\n b\r\n"},
		{"bare CR in a value", "X-Foo: a\rb\r\n"},
		{"NUL in a value", "X-Foo: a\x00b\r\n"},
		{"header with no colon", "X-Foo\r\n"},
		{"big header", "X-Big: " + strings.Repeat("a", 12000) + "\r\n"},
		{"oversized header", "X-Big: " + strings.Repeat("a", 40000) + "\r\n"},
		{"many headers", strings.Repeat("X-Many: 0123456789012345678901234567890123456789\r\n", 300)},
		{"too many headers", strings.Repeat("X-Many: 0123456789012345678901234567890123456789\r\n", 2000)},
	}
	for _, h := range headers {
		calls = append(calls, get("header "+h.name, ref, h.lines))
	}

	// The secret placed in unusual ways: each call carries its own. Where no
	// server reads it as the secret (misplaced), it is the second secret.
	placements := []struct {
		name, lines string
		misplaced   bool
	}{
		{"in lower case", "x-challenge-secret: ⟨secret⟩\r\n", false},
		{"without a space", "X-Challenge-Secret:⟨secret⟩\r\n", false},
		{"padded with tabs", "X-Challenge-Secret: \t⟨secret⟩\t\r\n", false},
		{"padded with spaces", "X-Challenge-Secret:    ⟨secret⟩   \r\n", false},
		{"upper-cased", "X-Challenge-Secret: ⟨SECRET⟩\r\n", false},
		{"with a suffix", "X-Challenge-Secret: ⟨secret⟩x\r\n", false},
		{"followed by NUL", "X-Challenge-Secret: ⟨secret⟩\x00\r\n", false},
		{"empty", "X-Challenge-Secret: \r\n", false},
		{"twice, the wrong one first", "X-Challenge-Secret: wrong\r\nX-Challenge-Secret: ⟨secret⟩\r\n", false},
		{"as a list", "X-Challenge-Secret: ⟨secret⟩, ⟨secret⟩\r\n", false},
		{"under an underscore name", "X_Challenge_Secret: ⟨secret⟩\r\n", true},
		{"with a space before the colon", "X-Challenge-Secret : ⟨secret⟩\r\n", true},
		{"folded into another header", "X-Foo: a\r\n X-Challenge-Secret: ⟨secret⟩\r\n", true},
		{"in a cookie", "Cookie: X-Challenge-Secret=⟨secret⟩\r\n", true},
	}
	for _, p := range placements {
		c := get("secret "+p.name, ref, p.lines)
		c.variants = []variant{asWritten}
		c.misplaced = p.misplaced
		calls = append(calls, c)
	}
	// A body that smuggles a second request: only the first is answered.
	calls = append(calls, call{name: "smuggled request", method: http.MethodGet, variants: bothVariants,
		raw: request("GET", ref, "HTTP/1.1", "Transfer-Encoding: chunked\r\n", "0\r\n\r\nGET /../canary.json HTTP/1.1\r\nHost: ⟨host⟩\r\n\r\n")})

	for _, m := range []string{"HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "PROPFIND", "BREW",
		"get", "Get", "G3T", "GET\t", strings.Repeat("X", 100)} {
		calls = append(calls, call{name: "method " + m, method: m, variants: bothVariants, raw: request(m, ref, "HTTP/1.1", "", "")})
	}
	calls = append(calls,
		call{name: "POST with a body", method: http.MethodPost, variants: bothVariants, raw: request("POST", ref, "HTTP/1.1", "Content-Length: 2\r\n", "{}")},
		call{name: "GET with a body", method: http.MethodGet, variants: bothVariants, raw: request("GET", ref, "HTTP/1.1", "Content-Length: 2\r\n", "{}")},
		call{name: "CONNECT", method: http.MethodConnect, variants: bothVariants, raw: request("CONNECT", "127.0.0.1:80", "HTTP/1.1", "", "")},
		call{name: "OPTIONS *", method: http.MethodOptions, variants: bothVariants, raw: request("OPTIONS", "*", "HTTP/1.1", "", "")},
		call{name: "no method", method: http.MethodGet, variants: bothVariants, raw: request("", ref, "HTTP/1.1", "", "")},
	)
	for _, version := range []string{"HTTP/1.0", "HTTP/1.2", "HTTP/1.10", "HTTP/2.0", "HTTP/3", "HTTP/9.9", "http/1.1", "HTTP/1.1 ", "HTTP/", "HTTP/1.1\x00"} {
		calls = append(calls, call{name: fmt.Sprintf("version %q", version), method: http.MethodGet, variants: bothVariants, raw: request("GET", ref, version, "", "")})
	}
	calls = append(calls,
		call{name: "HTTP/1.0 without Host", method: http.MethodGet, variants: bothVariants, raw: "GET " + ref + " HTTP/1.0\r\n⟨auth⟩\r\n"},
		call{name: "HTTP/1.1 without Host", method: http.MethodGet, variants: bothVariants, raw: "GET " + ref + " HTTP/1.1\r\n⟨auth⟩Connection: close\r\n\r\n"},
		call{name: "HTTP/0.9", method: http.MethodGet, variants: []variant{asWritten}, raw: "GET " + ref + "\r\n"},
		call{name: "bare LF line ends", method: http.MethodGet, variants: bothVariants,
			raw: "GET " + ref + " HTTP/1.1\nHost: ⟨host⟩\n⟨auth⟩Connection: close\n\n"},
		call{name: "two spaces", method: http.MethodGet, variants: bothVariants, raw: request("GET ", ref, "HTTP/1.1", "", "")},
		call{name: "target with a space", method: http.MethodGet, variants: bothVariants, raw: request("GET", "/referentiel x", "HTTP/1.1", "", "")},
		call{name: "target with a tab", method: http.MethodGet, variants: bothVariants, raw: request("GET", "/referentiel\tx", "HTTP/1.1", "", "")},
		call{name: "target with NUL", method: http.MethodGet, variants: bothVariants, raw: request("GET", "/referentiel\x00", "HTTP/1.1", "", "")},
		call{name: "CRLF in the target", method: http.MethodGet, variants: bothVariants, raw: request("GET", ref+"\r\nX-Injected: yes", "HTTP/1.1", "", "")},
		call{name: "a TLS handshake", method: http.MethodGet, variants: []variant{asWritten}, raw: "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n"},
		call{name: "empty line first", method: http.MethodGet, variants: bothVariants, raw: "\r\n" + request("GET", ref, "HTTP/1.1", "", "")},
	)
	for _, host := range []string{"CORPUS.ARKFORGE.TECH", "corpus.arkforge.tech.", "corpus.arkforge.tech:443", "127.0.0.1:1",
		"127.0.0.1:abc", "localhost:", "unknown-host.invalid", "", "evil.example/..", "corpus.arkforge.tech@evil.example",
		"[::1]", "127.0.0.1 x", strings.Repeat("h", 300)} {
		calls = append(calls, call{name: fmt.Sprintf("Host %q", host), method: http.MethodGet, variants: bothVariants,
			raw: "GET " + ref + " HTTP/1.1\r\nHost: " + host + "\r\n⟨auth⟩Connection: close\r\n\r\n"})
	}
	return calls
}
