package nginxconf

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
)

// nginx decides with PCRE what the corpus package decides in Go. The
// patterns below restate corpus.CheckTarget, corpus.IsReference and the
// handler's Host check; they use only syntax PCRE and Go's RE2 read alike, so
// that the tests can hold each one against the Go function it restates.

// pathChar is RFC 3986's pchar without '%' (corpus.isPathChar), as a class.
const pathChar = `[A-Za-z0-9._~!$&'()*+,;=:@-]`

// pathCharNotDot is pathChar without '.'.
const pathCharNotDot = `[A-Za-z0-9_~!$&'()*+,;=:@-]`

// segment is one path segment other than "" "." and "..": a first character
// that is not a dot, or a dot and then one that is not, or two dots and
// anything more (RE2 has no lookahead to say "not . nor ..").
const segment = `(?:` + pathCharNotDot + `|\.` + pathCharNotDot + `|\.\.` + pathChar + `)` + pathChar + `*`

// targetPattern matches exactly the request-targets corpus.CheckTarget accepts.
const targetPattern = `(?:/` + segment + `)+`

// requestLinePattern matches the request line ($request) of a call the
// frontal may hand on: GET, a target in origin form that CheckTarget accepts,
// HTTP/1.x. A query, a fragment, percent-encoding, an absolute form (which
// nginx would otherwise reduce to its path), two spaces: anything else is
// refused. HTTP/1.x only, as Go reads it: one digit after the dot.
const requestLinePattern = `^GET ` + targetPattern + ` HTTP/1\.[0-9]$`

// referencePattern matches /<collection>/<id> for a known collection and an
// id in the grammar: the paths whose absence is answered "existe": false.
func referencePattern() string {
	names := make([]string, len(corpus.Collections))
	for i, c := range corpus.Collections {
		names[i] = regexp.QuoteMeta(c)
	}
	return `^/(?:` + strings.Join(names, "|") + `)/` + corpus.IDGrammar + `$`
}

// hostPattern matches a Host header naming one of hosts, with or without a
// port, ignoring case, as the handler's hostAllowed reads it (host names and
// IPv4 addresses only: see validHost).
func hostPattern(hosts []string) string {
	quoted := make([]string, len(hosts))
	for i, h := range hosts {
		quoted[i] = regexp.QuoteMeta(h)
	}
	return `^(?:` + strings.Join(quoted, "|") + `)(?::[0-9]{0,5})?$`
}

// validHost accepts a DNS name or an IPv4 address. An IPv6 literal is refused:
// the handler strips its brackets and accepts it bare, which the pattern above
// would have to restate with more care than any deployment needs.
var validHost = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$`)

// gatePattern matches an X-Challenge-Secret value equal to secret once
// surrounding spaces and tabs are trimmed, as Go trims them and nginx does
// not (nginx keeps a tab). Every character that is not a letter or a digit is
// escaped, so the secret is compared literally and with its case.
func gatePattern(secret string) string {
	var b strings.Builder
	b.WriteString(`^[ \t]*`)
	for i := 0; i < len(secret); i++ {
		c := secret[i]
		if !isAlnum(c) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteString(`[ \t]*$`)
	return b.String()
}

// checkSecret refuses what the gate cannot hold: a secret shorter than the
// handler accepts, or one with a byte outside visible ASCII, which a header
// value could not carry unchanged through both servers. The error never
// quotes the secret.
func checkSecret(slot int, secret string) error {
	if len(secret) < corpus.MinSecretLength {
		return &SecretError{Slot: slot, Problem: fmt.Sprintf("shorter than %d bytes", corpus.MinSecretLength)}
	}
	for i := 0; i < len(secret); i++ {
		if secret[i] < 0x21 || secret[i] > 0x7e {
			return &SecretError{Slot: slot, Problem: fmt.Sprintf("byte %d is not visible ASCII", i)}
		}
	}
	return nil
}

// SecretError is a secret the gate cannot hold, by its slot (its place
// among the secrets given), so that a caller can name where it came from.
// It never holds the secret.
type SecretError struct {
	Slot    int
	Problem string
}

func (e *SecretError) Error() string { return fmt.Sprintf("secret %d: %s", e.Slot, e.Problem) }

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
