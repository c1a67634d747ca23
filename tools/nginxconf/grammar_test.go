package nginxconf

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/arkforge/proveit-corpus/corpus"
)

// The patterns restate the corpus package's grammar in PCRE. They use only
// syntax RE2 reads alike, so Go can hold each against the function it restates.

var (
	targetRE      = regexp.MustCompile(`^` + targetPattern + `$`)
	requestLineRE = regexp.MustCompile(requestLinePattern)
	referenceRE   = regexp.MustCompile(referencePattern())
)

// targetSamples are the targets of corpus's own tests and the edges of each rule.
var targetSamples = []string{
	"/agrements/AGR-4417", "/listes/agrees/change-manuel-p2", "/referentiel", "/a:b@c!$&'()*+,;=~",
	"", "/", "agrements/AGR-4417", "*", "http://corpus.arkforge.tech/referentiel", "/referentiel?",
	"/referentiel?a=1", "/referentiel#x", "/agrements%2FAGR-4417", "/agrements/%2e%2e", "//referentiel",
	"/agrements//AGR-4417", "/./referentiel", "/agrements/..", "/agrements/.", "/agrements/AGR-4417/",
	"/entités/ENT-1", "/a b", "/a\x00b", "/a\\b", "/a\"b", "/a<b>", "/..a", "/...", "/.a", "/a.", "/a..",
	"/.", "/..", "/.../x", "/x/...", "/a\nb", "/a\tb",
}

func TestTargetPatternIsCheckTarget(t *testing.T) {
	for _, target := range append(targetSamples, randomTargets(20000)...) {
		_, err := corpus.CheckTarget(target)
		if got, want := targetRE.MatchString(target), err == nil; got != want {
			t.Errorf("%q: pattern says %v, CheckTarget says %v", target, got, want)
		}
	}
}

// FuzzTargetPattern holds the pattern against CheckTarget on any input.
func FuzzTargetPattern(f *testing.F) {
	for _, s := range targetSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		_, err := corpus.CheckTarget(target)
		if targetRE.MatchString(target) != (err == nil) {
			t.Fatalf("%q: pattern and CheckTarget disagree", target)
		}
	})
}

func TestRequestLinePattern(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
	}{
		{"GET /referentiel HTTP/1.1", true},
		{"GET /referentiel HTTP/1.0", true},
		{"GET /agrements/AGR-4417 HTTP/1.1", true},
		{"HEAD /referentiel HTTP/1.1", false},
		{"POST /referentiel HTTP/1.1", false},
		{"get /referentiel HTTP/1.1", false},
		{"GET http://corpus.arkforge.tech/referentiel HTTP/1.1", false},
		{"GET /referentiel? HTTP/1.1", false},
		{"GET  /referentiel HTTP/1.1", false},
		{"GET /referentiel HTTP/1.10", false},
		{"GET /referentiel HTTP/2.0", false},
		{"GET /referentiel", false},
		{"GET /referentiel HTTP/1.1 ", false},
		{"GET /a/../b HTTP/1.1", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.ok, requestLineRE.MatchString(tt.line), tt.line)
	}
}

func TestReferencePatternIsIsReference(t *testing.T) {
	samples := []string{"/agrements/AGR-9999", "/listes/agrees/x.y_z-1", "/agrements/" + strings.Repeat("a", 64),
		"/agrements/" + strings.Repeat("a", 65), "/agrements/-x", "/agrements/a~b", "/agrements", "/listes/agrees",
		"/listes/autres/x", "/_systeme/404", "/referentiel", "/agrements/A/B", "/Agrements/A", "/agrementsX/A", "x/agrements/A"}
	for _, c := range corpus.Collections {
		samples = append(samples, "/"+c+"/A", "/"+c+"/.A", "/"+c+"/A.", "/"+c+"/_")
	}
	for _, path := range append(samples, randomTargets(20000)...) {
		if got, want := referenceRE.MatchString(path), corpus.IsReference(path); got != want {
			t.Errorf("%q: pattern says %v, IsReference says %v", path, got, want)
		}
	}
}

func TestHostPattern(t *testing.T) {
	re := regexp.MustCompile(`(?i)` + hostPattern([]string{"corpus.arkforge.tech", "127.0.0.1"}))
	tests := []struct {
		host string
		ok   bool
	}{
		{"corpus.arkforge.tech", true},
		{"CORPUS.ArkForge.Tech", true},
		{"corpus.arkforge.tech:443", true},
		{"corpus.arkforge.tech:", true}, // as net.SplitHostPort reads it
		{"127.0.0.1:8080", true},
		{"corpus.arkforge.tech.", false},
		{"corpusXarkforge.tech", false},
		{"127.0.0.10", false},
		{"evil.example:corpus.arkforge.tech", false},
		{"corpus.arkforge.tech:80:80", false},
		{"corpus.arkforge.tech:]", false},
		{"corpus.arkforge.tech:abc", false},
		{"corpus.arkforge.tech:443 x", false},
		{"corpus.arkforge.tech:443000", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.ok, re.MatchString(tt.host), tt.host)
	}
}

func TestGatePatternIsLiteral(t *testing.T) {
	secret := `~^.*+?()[]{}|\$/"'#;` + strings.Repeat("Ab9", 10)
	re := regexp.MustCompile(gatePattern(secret))
	tests := []struct {
		value string
		ok    bool
	}{
		{secret, true},
		{" \t" + secret + "\t ", true}, // trimmed as Go trims a header value
		{strings.ToLower(secret), false},
		{secret + "x", false},
		{secret[:len(secret)-1], false},
		{secret + ", " + secret, false}, // nginx 1.23 and later join a repeated header so
		{"x" + secret, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.ok, re.MatchString(tt.value), "%q", tt.value)
	}
}

// randomTargets draws targets from the characters every rule turns on.
func randomTargets(n int) []string {
	const alphabet = "/./..%?#aZ09-_~!$&'()*+,;=:@\\\" é\x00<>AGR"
	r := rand.New(rand.NewPCG(1, 2))
	targets := make([]string, n)
	for i := range targets {
		var b strings.Builder
		if r.IntN(8) > 0 {
			b.WriteString("/" + corpus.Collections[r.IntN(len(corpus.Collections))])
		}
		for range r.IntN(12) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		targets[i] = b.String()
	}
	return targets
}
