package nginxconf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// Answer is one body a configuration answers with by itself: a return
// directive, its status, and what it was verified to be.
type Answer struct {
	Line   int
	Status int
	// Body is the manifest path whose bytes the answer is ("/_systeme/403"),
	// or "existe: false" for the absent body built around the target.
	Body string
	// SHA256 is that of the bytes answered; for the absent body, of the
	// body of the first absent entry checked.
	SHA256 string
}

func (a Answer) String() string {
	return fmt.Sprintf("line %d: return %d: %s (sha256 %s)", a.Line, a.Status, a.Body, a.SHA256)
}

// absentSamples are checked besides the manifest's absent entries, so that
// the absent body is verified even against a manifest that cites none.
var absentSamples = []string{"/agrements/VERIFY-0", "/listes/agrees/verify.1_x-2"}

// Verify reads back every body a configuration answers with by itself (each
// return directive, with the geo literals it names substituted as nginx
// would) and checks it against the manifest: the 400, 403, 404 and 503
// bodies must be the bytes of the manifest's /_systeme/* entries, and a 200
// must be the "existe": false body around $request_uri, byte for byte for
// every absent entry of the manifest. Any other status, a return without a
// body (nginx would write its own page), a variable that is not a literal,
// or a missing 400, 403 or 503 body is an error.
func Verify(conf, manifestBytes []byte) ([]Answer, error) {
	m, err := manifest.Decode(manifestBytes)
	if err != nil {
		return nil, err
	}
	statements, err := parseConf(string(conf))
	if err != nil {
		return nil, err
	}
	literals := map[string]string{}
	walk(statements, func(d directive) {
		if d.Name == "geo" && len(d.Args) > 0 {
			for _, entry := range d.Block {
				if entry.Name == "default" && len(entry.Args) == 1 {
					literals[strings.TrimPrefix(d.Args[len(d.Args)-1], "$")] = entry.Args[0]
				}
			}
		}
	})

	var answers []Answer
	var problems []error
	found := map[int]bool{}
	walk(statements, func(d directive) {
		if d.Name != "return" {
			return
		}
		answer, err := verifyReturn(d, literals, m)
		if err != nil {
			problems = append(problems, fmt.Errorf("line %d: %w", d.Line, err))
			return
		}
		found[answer.Status] = true
		answers = append(answers, answer)
	})
	for _, status := range []int{400, 403, 503} {
		if !found[status] {
			problems = append(problems, fmt.Errorf("no return gives the %d body", status))
		}
	}
	return answers, errors.Join(problems...)
}

func verifyReturn(d directive, literals map[string]string, m *manifest.Manifest) (Answer, error) {
	if len(d.Args) != 2 {
		return Answer{}, fmt.Errorf("return without a body of its own: nginx would answer its own page")
	}
	status, err := strconv.Atoi(d.Args[0])
	if err != nil {
		return Answer{}, fmt.Errorf("return %q: not a status", d.Args[0])
	}
	head, tail, slots, err := resolve(d.Args[1], literals)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Line: d.Line, Status: status}
	switch {
	case status == 200 && slots == 1:
		a.Body = "existe: false"
		paths := append([]string(nil), absentSamples...)
		for _, e := range m.Resources {
			if e.Kind == manifest.Absent {
				paths = append(paths, e.Path)
			}
		}
		for _, path := range paths {
			body := head + path + tail
			if body != string(corpus.AbsentBody(path)) {
				return a, fmt.Errorf("return 200: the body for %s differs from corpus.AbsentBody", path)
			}
			if e, listed := m.Lookup(path); listed && anchor.SHA256([]byte(body)) != e.BytesSHA256 {
				return a, fmt.Errorf("return 200: the body for %s differs from the manifest's", path)
			}
			if a.SHA256 == "" {
				a.SHA256 = anchor.SHA256([]byte(body))
			}
		}
		return a, nil
	case slots != 0:
		return a, fmt.Errorf("return %d: only the 200 of an absent reference may use $request_uri", status)
	}
	a.Body = "/_systeme/" + strconv.Itoa(status)
	a.SHA256 = anchor.SHA256([]byte(head))
	e, listed := m.Lookup(a.Body)
	switch {
	case !corpus.IsSystem(a.Body) || !listed:
		return a, fmt.Errorf("return %d: the contract has no fixed body for this status", status)
	case e.Status != status:
		return a, fmt.Errorf("return %d: the manifest serves %s with %d", status, a.Body, e.Status)
	case a.SHA256 != e.BytesSHA256:
		return a, fmt.Errorf("return %d: body sha256 %s, the manifest's %s is %s", status, a.SHA256, a.Body, e.BytesSHA256)
	}
	return a, nil
}

// resolve substitutes in a return's text the geo literals it names, as
// nginx evaluates it. $request_uri, the only other variable allowed, splits
// the text into head and tail; slots counts its occurrences.
func resolve(text string, literals map[string]string) (head, tail string, slots int, err error) {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] != '$' {
			b.WriteByte(text[i])
			continue
		}
		name, next, ok := variableName(text, i+1)
		if !ok {
			return "", "", 0, fmt.Errorf("a '$' at byte %d starts no variable", i)
		}
		i = next - 1
		if value, isLiteral := literals[name]; isLiteral {
			b.WriteString(value)
			continue
		}
		if name != "request_uri" {
			return "", "", 0, fmt.Errorf("$%s is not one of the configuration's literals", name)
		}
		if slots++; slots > 1 {
			return "", "", 0, fmt.Errorf("$request_uri appears more than once")
		}
		head = b.String()
		b.Reset()
	}
	if slots == 0 {
		return b.String(), "", 0, nil
	}
	return head, b.String(), slots, nil
}

// variableName reads a variable name at text[i:], written name or {name}.
func variableName(text string, i int) (name string, next int, ok bool) {
	braced := i < len(text) && text[i] == '{'
	if braced {
		i++
	}
	start := i
	for i < len(text) && (isAlnum(text[i]) || text[i] == '_') {
		i++
	}
	name = text[start:i]
	if braced {
		if i >= len(text) || text[i] != '}' {
			return "", 0, false
		}
		i++
	}
	return name, i, name != ""
}

func walk(statements []directive, visit func(directive)) {
	for _, d := range statements {
		visit(d)
		walk(d.Block, visit)
	}
}
