// Package nginxconf writes the nginx configuration that serves the corpus
// under the same HTTP contract as the Caddy handler (docs/contract.md, section 2),
// so that an operator may run the corpus with Caddy alone, with nginx in front
// of Caddy, or with nginx alone, and no participant's proof can tell which.
//
// The configuration is generated from the manifest: the fixed bodies of
// /_systeme/* are the manifest's files byte for byte, the resources nginx
// serves are the manifest's documents and no other file, and the
// "existe": false body is corpus.AbsentBody around the request-target. Verify
// reads the literals back out of a configuration and checks them against a
// manifest. The challenge secrets never enter the configuration: it includes
// them from a file that WriteGate writes outside every repository.
//
// What nginx cannot match exactly is written down in docs/reliability.md.
package nginxconf

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

// Options describe the server to generate. Exactly one of Upstreams and
// Root is set: the frontal to the Caddy corpus, or nginx alone.
type Options struct {
	// Manifest is the manifest file: every literal and resource comes from it.
	Manifest []byte

	// Tree is the corpus tree the fixed bodies are read from, checked byte
	// for byte against Manifest. With Root set, the tree is the one at Root.
	Tree fs.FS

	// Upstreams are the host:port of each Caddy corpus server the frontal
	// hands calls to: one, or replicas serving the same manifests. A call
	// that fails on one (an error or a timeout, never an answer) goes on to
	// the next; the 503 body answers only when none does.
	Upstreams []string

	// Root, an absolute path, is the tree nginx serves itself, through its
	// own backend on BackendSocket (an absolute path; nginx creates it).
	Root          string
	BackendSocket string

	// Listen are the arguments of the frontal's listen directives
	// ("127.0.0.1:8080", "443 ssl"); each is the default server of its address.
	Listen []string

	// Hosts are the Host names answered; any other gets the 400 body.
	Hosts []string

	// GateFile is the absolute path of the include that defines $proveit_gate
	// from the secrets (see WriteGate).
	GateFile string

	// ServerInclude, when set, is an absolute path included in the frontal's
	// server block, for what the deployment adds (TLS certificates).
	ServerInclude string

	// Maintenance answers the 503 body to every call past the gate.
	Maintenance bool

	// Others are the corpora of the other tracks served at the same origin
	// (docs/contract.md, section 3), each with its own manifest; Manifest, Tree
	// and Root above are the first track's. Their fixed bodies must be the
	// first's, byte for byte, and no path may belong to two of them.
	Others []Corpus
}

// Corpus is one more track's corpus: its manifest and, as for the first,
// the tree its fixed bodies are read from (with Upstream) or the tree nginx
// serves itself (Root, an absolute path).
type Corpus struct {
	Manifest []byte
	Tree     fs.FS
	Root     string
}

// PassOver is how long the frontal passes over a replica that failed a
// call (nginx's fail_timeout) before trying it again: a replica back up is
// served again at most this long after.
const PassOver = 2 * time.Second

//go:embed vhost.conf.tmpl
var vhostTemplate string

var vhost = template.Must(template.New("vhost").Funcs(template.FuncMap{
	"quote":   quote,
	"literal": literal,
	"join":    strings.Join,
	"seconds": func(d time.Duration) int { return int(d / time.Second) },
}).Parse(vhostTemplate))

// vhostData is what the template is filled with.
type vhostData struct {
	Options
	ManifestSHA256                     string
	Entries                            int
	Body400, Body403, Body404, Body503 string
	AbsentHead, AbsentTail             string
	RequestLinePattern                 string
	HostPattern, ReferencePattern      string
	Resources                          []resourceFile
	PassOver                           time.Duration
}

type resourceFile struct {
	Path, File, Root string
}

// Generate writes the configuration. It refuses options it cannot render
// faithfully, and a tree that does not match the manifest byte for byte.
func Generate(o Options) ([]byte, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	corpora := append([]Corpus{{Manifest: o.Manifest, Tree: o.Tree, Root: o.Root}}, o.Others...)
	d := vhostData{
		Options:            o,
		RequestLinePattern: "~" + requestLinePattern,
		HostPattern:        "~*" + hostPattern(o.Hosts),
		ReferencePattern:   referencePattern(),
		PassOver:           PassOver,
	}
	var sums []string
	owners := map[string]int{}
	for i, c := range corpora {
		m, bodies, err := c.check()
		if err != nil {
			return nil, err
		}
		sums = append(sums, anchor.SHA256(c.Manifest))
		d.Entries += len(m.Resources)
		for _, lit := range []struct {
			path string
			dst  *string
		}{
			{corpus.SystemBadRequest, &d.Body400},
			{corpus.SystemForbidden, &d.Body403},
			{corpus.SystemNotFound, &d.Body404},
			{corpus.SystemUnavailable, &d.Body503},
		} {
			body, ok := bodies[lit.path]
			switch {
			case !ok:
				return nil, fmt.Errorf("the %s tree has no %s", m.Track, lit.path)
			case i == 0:
				*lit.dst = string(body)
			case string(body) != *lit.dst:
				return nil, fmt.Errorf("the %s tree's %s differs from the first tree's: one body answers for every track", m.Track, lit.path)
			}
		}
		if d.AbsentHead, d.AbsentTail, err = absentTemplate(m); err != nil {
			return nil, err
		}
		for _, e := range m.Resources {
			if e.Kind == manifest.System {
				continue
			}
			if j, taken := owners[e.Path]; taken {
				return nil, fmt.Errorf("%s: claimed by the manifests of both %s and %s", e.Path, corpora[j].piste(), m.Track)
			}
			owners[e.Path] = i
			if e.Kind != manifest.Document {
				continue
			}
			if !plainPath(e.Path) || e.File == nil || !plainPath("/"+*e.File) {
				return nil, fmt.Errorf("%s: a path or file name nginx could not be given literally", e.Path)
			}
			d.Resources = append(d.Resources, resourceFile{Path: e.Path, File: "/" + *e.File, Root: c.Root})
		}
	}
	d.ManifestSHA256 = strings.Join(sums, ", ")
	for _, s := range []string{d.Body400, d.Body403, d.Body404, d.Body503, d.AbsentHead, d.AbsentTail} {
		if err := checkLiteral(s); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	if err := vhost.Execute(&out, d); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// check reads a corpus's manifest and checks its tree against it, hash for
// hash, returning the bodies.
func (c Corpus) check() (*manifest.Manifest, map[string][]byte, error) {
	m, err := manifest.Decode(c.Manifest)
	if err != nil {
		return nil, nil, err
	}
	tree := c.Tree
	if c.Root != "" {
		tree = os.DirFS(c.Root)
	}
	bodies, err := verify.Tree(m, tree, verify.Full, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", m.Track, err)
	}
	return m, bodies, nil
}

// piste names a corpus in errors: its manifest's track.
func (c Corpus) piste() string {
	m, err := manifest.Decode(c.Manifest)
	if err != nil {
		return "?"
	}
	return m.Track
}

// absentMarker is a reference no manifest will hold: AbsentBody is split
// around it, so the nginx body is built by the very function Caddy serves.
const absentMarker = "/entites/NGINX-ABSENT-MARKER.0"

// absentTemplate splits corpus.AbsentBody around the path, and checks that
// the split rebuilds every absent body of the manifest.
func absentTemplate(m *manifest.Manifest) (head, tail string, err error) {
	body := string(corpus.AbsentBody(absentMarker))
	if strings.Count(body, absentMarker) != 1 {
		return "", "", fmt.Errorf("corpus.AbsentBody does not hold the path exactly once")
	}
	head, tail, _ = strings.Cut(body, absentMarker)
	for _, e := range m.Resources {
		if e.Kind == manifest.Absent && anchor.SHA256([]byte(head+e.Path+tail)) != e.BytesSHA256 {
			return "", "", fmt.Errorf("%s: the absent body nginx would build differs from the manifest", e.Path)
		}
	}
	return head, tail, nil
}

func (o *Options) validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	switch {
	case (len(o.Upstreams) == 0) == (o.Root == ""):
		check(false, "exactly one of an upstream (the Caddy corpus) and a root (nginx alone) is needed")
	case len(o.Upstreams) > 0:
		seen := map[string]bool{}
		for _, upstream := range o.Upstreams {
			// The upstream is written unquoted into the vhost: only a DNS
			// name or an IPv4 address and a port in 1..65535 may stand there.
			host, port, err := net.SplitHostPort(upstream)
			n, perr := strconv.ParseUint(port, 10, 16)
			check(err == nil && perr == nil && n > 0 && port == strconv.FormatUint(n, 10) && validHost.MatchString(host),
				"upstream %q: want host:port, a DNS name or an IPv4 address and a port in 1..65535", upstream)
			check(!seen[upstream], "upstream %q given twice", upstream)
			seen[upstream] = true
		}
	default:
		check(o.Tree == nil, "a root is read from disk: give no other tree")
		check(plainAbsolute(o.Root), "root %q: want an absolute path without quotes, '$' or control characters", o.Root)
		check(plainAbsolute(o.BackendSocket), "backend socket %q: want an absolute path without quotes, '$' or control characters", o.BackendSocket)
	}
	if o.Root == "" {
		check(o.Tree != nil, "no corpus tree to read the fixed bodies from")
	}
	for i, c := range o.Others {
		if o.Root != "" {
			check(c.Tree == nil && plainAbsolute(c.Root), "corpus %d: nginx alone serves every tree from disk: want an absolute root without quotes, '$' or control characters", i+1)
		} else {
			check(c.Tree != nil && c.Root == "", "corpus %d: the frontal reads the fixed bodies from a tree, and serves no root", i+1)
		}
	}
	check(len(o.Listen) > 0, "no listen address")
	for _, l := range o.Listen {
		check(l != "" && !strings.ContainsAny(l, ";{}\"'#$\\\n\r") && !strings.Contains(l, "http2") && !strings.Contains(l, "default_server"),
			"listen %q: want an address and parameters (default_server is added, http2 is not served)", l)
	}
	check(len(o.Hosts) > 0, "no host: the corpus answers named hosts only")
	for _, h := range o.Hosts {
		check(validHost.MatchString(h), "host %q: want a DNS name or an IPv4 address", h)
	}
	check(plainAbsolute(o.GateFile) && !strings.ContainsAny(o.GateFile, "*?["), "gate file %q: want an absolute path, no glob", o.GateFile)
	if o.ServerInclude != "" {
		check(plainAbsolute(o.ServerInclude) && !strings.ContainsAny(o.ServerInclude, "*?["), "server include %q: want an absolute path, no glob", o.ServerInclude)
	}
	return errors.Join(errs...)
}

// plainAbsolute reports whether p is an absolute path nginx reads literally.
func plainAbsolute(p string) bool {
	return filepath.IsAbs(p) && !strings.ContainsAny(p, "$\"'\\") && !hasControl(p)
}

// plainPath reports whether p needs no quoting and interpolates nothing in
// try_files or a location: what corpus.PathOf allows in a file name.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i]; !isAlnum(c) && !strings.ContainsRune("/._-", rune(c)) {
			return false
		}
	}
	return strings.HasPrefix(p, "/")
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// checkLiteral refuses a body nginx could not hold in its configuration: a
// control character other than the JSON whitespace.
func checkLiteral(s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f {
			return fmt.Errorf("a fixed body holds the control byte %#x, which an nginx configuration cannot carry", c)
		}
	}
	return nil
}
