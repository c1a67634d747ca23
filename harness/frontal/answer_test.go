package frontal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/verify"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// answer is what a server did with one request, sent as raw bytes: an
// HTTP/1.x response, bytes that are none (an HTTP/0.9 answer), or a
// connection closed without a word.
type answer struct {
	Status  int
	Header  http.Header
	Body    []byte
	Raw     []byte // not an HTTP/1.x response
	Closed  bool
	Interim bool // an interim 1xx response came first
}

// key is what the differential compares: the status and the bytes.
func (a answer) key() string {
	switch {
	case a.Closed:
		return "closed"
	case a.Raw != nil:
		return "raw " + anchor.SHA256(a.Raw)
	}
	return fmt.Sprintf("%d %s", a.Status, anchor.SHA256(a.Body))
}

func (a answer) String() string {
	switch {
	case a.Closed:
		return "closed connection"
	case a.Raw != nil:
		return fmt.Sprintf("raw bytes %q", shorten(a.Raw))
	}
	return fmt.Sprintf("%d %q", a.Status, shorten(a.Body))
}

func shorten(b []byte) string {
	if len(b) > 80 {
		return string(b[:60]) + "...(" + strconv.Itoa(len(b)) + " bytes)"
	}
	return string(b)
}

// exchange sends raw bytes on a new connection to the server at baseURL and
// reads one response. A server that neither answers nor closes within the
// deadline is an error: hanging is not an answer.
func exchange(baseURL string, raw []byte, method string) (answer, error) {
	client, err := probe.NewClient(baseURL, 15*time.Second)
	if err != nil {
		return answer{}, err
	}
	resp, err := client.Exchange(context.Background(), raw, method)
	var notHTTP *probe.NotHTTPError
	switch {
	case errors.Is(err, probe.ErrClosed):
		return answer{Closed: true}, nil
	case errors.As(err, &notHTTP):
		return answer{Raw: notHTTP.Bytes}, nil
	case err != nil:
		return answer{}, err
	}
	return answer{Status: resp.Status, Header: resp.Header, Body: resp.Body, Interim: resp.Interim}, nil
}

// contractBodies indexes every body the contract can answer with, by the
// SHA-256 of its bytes: the manifest's entries, and the fixed bodies by status.
type contractBodies struct {
	bySHA256 map[string]bool
	fixed    map[int][]byte // status of each /_systeme body: its bytes
}

func newContractBodies(m *manifest.Manifest, root string) (*contractBodies, error) {
	c := &contractBodies{bySHA256: map[string]bool{}, fixed: map[int][]byte{}}
	bodies, err := verify.Tree(m, os.DirFS(root), verify.Full, nil)
	if err != nil {
		return nil, err
	}
	for _, e := range m.Resources {
		c.bySHA256[e.BytesSHA256] = true
	}
	for path, status := range corpus.SystemStatus {
		c.fixed[status] = bodies[path]
	}
	return c, nil
}

// contractProblem says why an answer is not one the contract allows for a
// request with that method: a closed connection, or the contract's headers
// and a status with one of its bodies (for HEAD, none, and the length of the
// body it stands for).
func (c *contractBodies) contractProblem(a answer, method string) error {
	if a.Closed {
		return nil
	}
	if a.Raw != nil {
		return fmt.Errorf("not an HTTP response: %s", a)
	}
	if problems := probe.HeaderProblems(a.Header); len(problems) > 0 {
		return fmt.Errorf("%s: %s", a, strings.Join(problems, "; "))
	}
	if method == http.MethodHead {
		fixed, ok := c.fixed[a.Status]
		if !ok || len(a.Body) != 0 || a.Header.Get("Content-Length") != strconv.Itoa(len(fixed)) {
			return fmt.Errorf("HEAD answered %s, Content-Length %s", a, a.Header.Get("Content-Length"))
		}
		return nil
	}
	if fixed, ok := c.fixed[a.Status]; ok {
		if !bytes.Equal(a.Body, fixed) {
			return fmt.Errorf("status %d with a body that is not its fixed body: %s", a.Status, a)
		}
		return nil
	}
	if a.Status != http.StatusOK {
		return fmt.Errorf("status %d is not the contract's: %s", a.Status, a)
	}
	if c.bySHA256[anchor.SHA256(a.Body)] {
		return nil
	}
	if obj, err := anchor.CheckBody(a.Body); err == nil {
		if p, _ := obj.Get("ressource"); p != nil {
			if path, _ := p.(string); corpus.IsReference(path) && bytes.Equal(a.Body, corpus.AbsentBody(path)) {
				return nil
			}
		}
	}
	return fmt.Errorf("200 with a body that is neither a resource nor an absent body: %s", a)
}

// isHTTP09Refusal reports whether a is nginx's answer to an HTTP/0.9
// request (a first line with no version): the bare 403 body, since such a
// request has no headers, hence no secret.
func (c *contractBodies) isHTTP09Refusal(req call, a answer) bool {
	firstLine, _, _ := strings.Cut(req.raw, "\n")
	return !strings.Contains(firstLine, " HTTP/") && a.Raw != nil && bytes.Equal(a.Raw, c.fixed[403])
}

// refusedBeforeHandler names what Caddy, or Go under it, answered by itself
// before the corpus handler could run, or returns "" for any other answer.
// Go writes its refusals of a request it cannot parse as plain text without
// a Server header (docs/operating.md, "What Go answers before any handler runs"), and
// answers OPTIONS * with an empty 200 the same way; Caddy's server refuses a
// method longer than 32 bytes (405) and an empty Host (400) with an empty
// body. None is a contract body: the frontal turns each into the 400 body.
func refusedBeforeHandler(a answer) string {
	if a.Raw != nil || a.Closed || a.Header.Get("Content-Type") == "application/json; charset=utf-8" {
		return ""
	}
	switch server := a.Header.Get("Server"); {
	case server == "" && a.Header.Get("Content-Type") == "text/plain; charset=utf-8":
		line, _, _ := strings.Cut(string(a.Body), "\n")
		return fmt.Sprintf("Go: %d, %q", a.Status, line)
	case server == "" && a.Status == http.StatusOK && len(a.Body) == 0:
		return "Go: 200, empty body (OPTIONS *)"
	case server == "Caddy" && len(a.Body) == 0 && a.Header.Get("Content-Type") == "":
		return fmt.Sprintf("Caddy: %d, empty body", a.Status)
	}
	return ""
}
