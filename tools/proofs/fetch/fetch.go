// Package fetch reads the public views of proofs from Trust Layer and the
// Rekor entries of their batches into a views folder (package proofs says
// its layout), so that a replay needs nothing but files. An anchored view
// never changes and an entry never does: each is read once and kept; a
// pending view is read again until its batch is anchored.
//
// It is a client both services can live with (docs/scoring.md): it names
// itself, keeps within Trust Layer's limit on view reads by a budget it
// checks before sending anything, honours Retry-After up to a bound,
// follows redirects only within the origin it was given, stops at an
// overall deadline, caps each answer at what it may hold, and writes only
// inside the views folder, each file whole or not at all.
package fetch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/atomicfile"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// BatchSize is the most proof ids one POST /v1/proofs takes (spec §10).
const BatchSize = 50

// Default endpoints: Trust Layer's and the public Rekor log's.
const (
	DefaultTrustLayer = "https://trust.arkforge.tech"
	DefaultRekor      = "https://rekor.sigstore.dev"
)

// viewReadsAnHour is how many reads of public views Trust Layer allows an
// address an hour; one POST /v1/proofs of up to 50 views counts as one
// (specification 10).
const viewReadsAnHour = 100

// DefaultBudget is the most reads of Trust Layer's views a fetch makes
// unless told otherwise: all an hour allows.
const DefaultBudget = viewReadsAnHour

// DefaultMaxWait is the longest a Retry-After is waited for unless told
// otherwise; a service that asks for longer is not called again this run.
const DefaultMaxWait = time.Minute

// maxRedirects bounds the redirects one request follows, as Go's client
// does by default.
const maxRedirects = 10

// viewFraming bounds what a batch's answer holds around each view: its id
// as a key, quotes, a colon, a comma and indentation.
const viewFraming = 128

// publicFile is the permission of the views and entries written: public
// material, which anyone replaying the scoring reads.
const publicFile os.FileMode = 0o644

// entriesDir is the folder, inside the views folder, that holds the Rekor
// entries.
var entriesDir = filepath.Dir(proofs.EntryFile("", "uuid"))

// UserAgent names this tool and its version to the services it reads,
// with where to learn about it: Trust Layer's edge refuses clients that do
// not name themselves. version is the module's (proveitcorpus.Version);
// what a product token may not hold is left out of it.
func UserAgent(version string) string {
	var token string
	if fields := strings.Fields(version); len(fields) > 0 {
		token = strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(".-_+~", r) {
				return r
			}
			return -1
		}, fields[0])
	}
	return "proveit/" + cmp.Or(token, "unknown") + " (+" + manifest.DefaultOrigin + ")"
}

// Fetcher reads views and entries into Dir. Its zero durations and budget
// take the defaults named on each field.
type Fetcher struct {
	// Client sends the requests, its Timeout bounding each one; its
	// redirect policy is replaced by the fetch's own (same origin only).
	// Nil is a client with no timeout of its own.
	Client     *http.Client
	TrustLayer string // base URL of Trust Layer
	Rekor      string // base URL of the Rekor log
	Dir        string // the views folder
	// UserAgent names the client to both services; empty is
	// UserAgent("").
	UserAgent string
	// Attempts bounds the tries of one request; a try is repeated only on
	// a network error, a 429 or a 5xx.
	Attempts int
	// Backoff is the wait before the second try, doubled for each next one;
	// a longer Retry-After is honoured instead, up to MaxWait.
	Backoff time.Duration
	// MaxWait is the longest Retry-After honoured (DefaultMaxWait when
	// zero): a service asking for longer is not called again this fetch,
	// and each request left says when to fetch again.
	MaxWait time.Duration
	// Deadline bounds the whole fetch, besides each request's timeout;
	// zero leaves it to the context.
	Deadline time.Duration
	// Budget is the most POST /v1/proofs a fetch sends, retries included
	// (DefaultBudget when zero): a fetch that would need more is refused
	// before anything is sent, with a *BudgetError.
	Budget int
}

// Report says what a fetch did.
type Report struct {
	Read, Kept  int // views read from Trust Layer, views already settled on disk
	EntriesRead int
	EntriesKept int
	Pending     []string // proofs whose batch is not anchored yet
	Errors      []error  // one per proof or entry that could not be read
}

// BudgetError refuses a fetch that would read Trust Layer's views more
// times than its budget.
type BudgetError struct {
	Views  int // views to read: not in the folder, or not settled there
	Reads  int // POST /v1/proofs they take, BatchSize views each
	Budget int
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%d views to read take %d reads of Trust Layer (%d views a read), over this fetch's budget of %d: "+
		"Trust Layer blocks an address past %d view reads an hour (specification 10)",
		e.Views, e.Reads, BatchSize, e.Budget, viewReadsAnHour)
}

// RetryLaterError is a service asking to be called again no sooner than
// At, later than the fetch waits or has time for.
type RetryLaterError struct {
	Request string // method and path
	Status  int
	At      time.Time
}

func (e *RetryLaterError) Error() string {
	at := e.At.UTC()
	if rounded := at.Truncate(time.Second); rounded.Before(at) {
		at = rounded.Add(time.Second)
	}
	return fmt.Sprintf("%s: %d %s; fetch again after %s", e.Request, e.Status, http.StatusText(e.Status), at.Format(time.RFC3339))
}

// RedirectError is a redirect refused: to another origin, or from https
// to plain http.
type RedirectError struct {
	To        string // the origin redirected to, scheme://host:port
	Downgrade bool   // from https to http
}

func (e *RedirectError) Error() string {
	if e.Downgrade {
		return fmt.Sprintf("a redirect from https to %q refused: never to plain http", e.To)
	}
	return fmt.Sprintf("a redirect to %q refused: only within the origin asked", e.To)
}

// Fetch reads the views of ids not yet settled in Dir, then the Rekor entry
// of every settled view that names one. A failure is reported per proof and
// does not stop the others. It refuses, before sending anything, a fetch
// over its budget (*BudgetError) or a folder whose entries folder is a
// link.
func (f *Fetcher) Fetch(ctx context.Context, ids []string) (*Report, error) {
	for _, base := range []string{f.TrustLayer, f.Rekor} {
		if err := checkBase(base); err != nil {
			return nil, err
		}
	}
	root, err := openFolder(f.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	r := &Report{}
	views, missing := plan(root, ids, r)
	budget := cmp.Or(f.Budget, DefaultBudget)
	if reads := (len(missing) + BatchSize - 1) / BatchSize; reads > budget {
		return nil, &BudgetError{Views: len(missing), Reads: reads, Budget: budget}
	}
	if f.Deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, f.Deadline, fmt.Errorf("the fetch's deadline of %s passed; fetch again for the rest", f.Deadline))
		defer cancel()
	}
	x := &run{Fetcher: f, ctx: ctx, client: f.client(), root: root, budget: budget, down: map[string]error{}}
	for batch := range slices.Chunk(missing, BatchSize) {
		x.readViews(batch, views, r)
	}
	uuids := map[string]bool{}
	for _, id := range ids {
		v, ok := views[id]
		if !ok {
			continue
		}
		if !v.Settled() {
			r.Pending = append(r.Pending, id)
			continue
		}
		if v.Log != nil && proofs.ValidRekorUUID(v.Log.UUID) {
			uuids[v.Log.UUID] = true
		}
	}
	for _, uuid := range slices.Sorted(maps.Keys(uuids)) {
		if keptEntry(root, uuid) {
			r.EntriesKept++
			continue
		}
		if err := x.keepEntry(uuid); err != nil {
			r.Errors = append(r.Errors, fmt.Errorf("Rekor entry %s: %w", uuid, err))
			continue
		}
		r.EntriesRead++
	}
	return r, nil
}

// plan sorts the ids into the views the folder keeps settled and the
// proofs to read: absent, pending or damaged on disk. An id no proof can
// have is an error of r.
func plan(root *os.Root, ids []string, r *Report) (kept map[string]*proofs.View, missing []string) {
	kept = map[string]*proofs.View{}
	for _, id := range ids {
		if !proofs.ValidProofID(id) {
			r.Errors = append(r.Errors, &proofs.ProofIDError{ID: id})
			continue
		}
		if v := keptView(root, id); v != nil && v.Settled() {
			r.Kept++
			kept[id] = v
			continue
		}
		missing = append(missing, id)
	}
	return kept, missing
}

// checkBase refuses a base URL that is not an absolute http or https one.
func checkBase(base string) error {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q: not an http or https base URL", base)
	}
	return nil
}

// openFolder opens the views folder, made if need be, as the root every
// file is read and written under, with its entries folder: a real folder,
// never a link, which would lead the entries elsewhere.
func openFolder(dir string) (*os.Root, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if err := root.Mkdir(entriesDir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		root.Close()
		return nil, err
	}
	info, err := root.Lstat(entriesDir)
	if err == nil && !info.IsDir() {
		err = fmt.Errorf("%s: a link or a file, not a folder; refused, as fetch writes inside the views folder only", filepath.Join(dir, entriesDir))
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// readKept reads a file the folder keeps, if it is a regular file of at
// most limit bytes: a link, a device, a pipe or an oversized file is not
// read, and so is fetched again and replaced.
func readKept(root *os.Root, name string, limit int64) ([]byte, bool) {
	info, err := root.Lstat(name)
	if err != nil || !info.Mode().IsRegular() || info.Size() > limit {
		return nil, false
	}
	file, err := root.Open(name)
	if err != nil {
		return nil, false
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil || int64(len(data)) > limit {
		return nil, false
	}
	return data, true
}

// keptView is the view of id the folder keeps, nil if none can be read.
func keptView(root *os.Root, id string) *proofs.View {
	name := proofs.ViewFile("", id)
	data, ok := readKept(root, name, proofs.MaxViewSize)
	if !ok {
		return nil
	}
	v, err := proofs.ParseView(name, data)
	if err != nil || v.ProofID != id {
		return nil
	}
	return v
}

// keptEntry reports whether the folder keeps the entry uuid whole.
func keptEntry(root *os.Root, uuid string) bool {
	data, ok := readKept(root, proofs.EntryFile("", uuid), proofs.MaxEntrySize)
	if !ok {
		return false
	}
	got, err := proofs.ParseRekorEntry(data)
	return err == nil && got == uuid
}

// keepView checks a view Trust Layer served and writes it as served.
func keepView(root *os.Root, id string, raw json.RawMessage) (*proofs.View, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("%s: Trust Layer knows no such proof", id)
	}
	v, err := proofs.ParseView(id, raw)
	if err != nil {
		return nil, err
	}
	if v.ProofID != id {
		return nil, fmt.Errorf("%s: Trust Layer answered the view of %q", id, v.ProofID)
	}
	if err := atomicfile.ReplaceIn(root, proofs.ViewFile("", id), raw, publicFile); err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	return v, nil
}

// client is the fetch's own copy of f.Client, with its redirect policy.
func (f *Fetcher) client() *http.Client {
	c := &http.Client{}
	if f.Client != nil {
		*c = *f.Client
	}
	c.CheckRedirect = sameOrigin
	return c
}

// sameOrigin follows a redirect within the origin of the first request
// only: a POST sent again elsewhere would hand another server what was
// meant for this one, and https must never fall to http.
func sameOrigin(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	switch to := originOf(req.URL); {
	case from.Scheme == "https" && req.URL.Scheme != "https":
		return &RedirectError{To: to, Downgrade: true}
	case to != originOf(from):
		return &RedirectError{To: to}
	case len(via) >= maxRedirects:
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// originOf is a URL's scheme, host and port, the port written even when
// it is the scheme's default.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// run is one fetch under way: its context, its client, the reads of its
// budget spent, and the services it no longer calls.
type run struct {
	*Fetcher
	ctx    context.Context
	client *http.Client
	root   *os.Root // the views folder
	budget int
	reads  int              // POST /v1/proofs sent
	down   map[string]error // origin → why this fetch calls it no more
}

// request is one call to a service.
type request struct {
	method, base, path string
	body               []byte
	limit              int64  // the most bytes a good answer holds
	holds              string // what limit is sized for, for its error
	read               bool   // a read of views, spent from the budget
}

// readViews asks Trust Layer for up to BatchSize views at once and keeps
// each into views, or its error into r.
func (x *run) readViews(ids []string, views map[string]*proofs.View, r *Report) {
	got, err := x.askViews(ids)
	if err != nil {
		for _, id := range ids {
			r.Errors = append(r.Errors, fmt.Errorf("%s: %w", id, err))
		}
		return
	}
	for _, id := range ids {
		v, err := keepView(x.root, id, got[id])
		if err != nil {
			r.Errors = append(r.Errors, err)
			continue
		}
		r.Read++
		views[id] = v
	}
}

// askViews is one POST /v1/proofs.
func (x *run) askViews(ids []string) (map[string]json.RawMessage, error) {
	body, err := json.Marshal(map[string][]string{"proof_ids": ids})
	if err != nil {
		return nil, err
	}
	holds := "one view"
	if len(ids) > 1 {
		holds = strconv.Itoa(len(ids)) + " views"
	}
	data, err := x.do(request{
		method: http.MethodPost, base: x.TrustLayer, path: "/v1/proofs", body: body,
		limit: int64(len(ids))*(proofs.MaxViewSize+viewFraming) + viewFraming, holds: holds, read: true,
	})
	if err != nil {
		return nil, err
	}
	var answer struct {
		Proofs map[string]json.RawMessage `json:"proofs"`
	}
	if err := json.Unmarshal(data, &answer); err != nil || answer.Proofs == nil {
		return nil, fmt.Errorf("POST /v1/proofs: not a {\"proofs\": {...}} answer")
	}
	return answer.Proofs, nil
}

// keepEntry reads one Rekor entry and writes it as Rekor served it.
func (x *run) keepEntry(uuid string) error {
	data, err := x.do(request{
		method: http.MethodGet, base: x.Rekor, path: "/api/v1/log/entries/" + uuid,
		limit: proofs.MaxEntrySize, holds: "a Rekor entry",
	})
	if err != nil {
		return err
	}
	got, err := proofs.ParseRekorEntry(data)
	if err != nil {
		return err
	}
	if got != uuid {
		return fmt.Errorf("Rekor answered the entry %q", got)
	}
	return atomicfile.ReplaceIn(x.root, proofs.EntryFile("", uuid), data, publicFile)
}

// outcome is what one try of a request came to.
type outcome struct {
	err    error
	retry  bool      // a network error, a 429 or a 5xx
	status int       // the status of an answer tried again
	after  time.Time // when its Retry-After allows the next try
}

// do sends one request, tried again on a network error, a 429 or a 5xx,
// and returns the body of a 200. A service that failed every try, or asked
// to wait past MaxWait, is not called again this fetch: what would be
// sent to it fails at once with the same error.
func (x *run) do(q request) ([]byte, error) {
	name := q.method + " " + q.path
	base, _ := url.Parse(q.base) // checked by Fetch
	origin := originOf(base)
	if err := x.down[origin]; err != nil {
		return nil, fmt.Errorf("not sent: %w", err)
	}
	attempts := max(x.Attempts, 1)
	backoff := x.Backoff
	for try := 1; ; try++ {
		if cause := context.Cause(x.ctx); cause != nil {
			return nil, fmt.Errorf("%s: %w", name, cause)
		}
		if q.read {
			if x.reads >= x.budget {
				return nil, fmt.Errorf("%s: not sent: this fetch's budget of %d reads of Trust Layer is spent (retries count)", name, x.budget)
			}
			x.reads++
		}
		data, o := x.once(q, name)
		if o.err == nil {
			return data, nil
		}
		if !o.retry {
			return nil, o.err
		}
		wait := backoff
		backoff *= 2
		if !o.after.IsZero() {
			asked := time.Until(o.after)
			if asked > cmp.Or(x.MaxWait, DefaultMaxWait) || x.pastDeadline(asked) {
				return nil, x.giveUp(origin, &RetryLaterError{Request: name, Status: o.status, At: o.after})
			}
			wait = max(wait, asked)
		}
		if try == attempts {
			if !o.after.IsZero() {
				return nil, x.giveUp(origin, &RetryLaterError{Request: name, Status: o.status, At: o.after})
			}
			return nil, x.giveUp(origin, o.err)
		}
		timer := time.NewTimer(wait)
		select {
		case <-x.ctx.Done():
			timer.Stop()
		case <-timer.C:
		}
	}
}

// pastDeadline reports whether a wait would end past the fetch's deadline.
func (x *run) pastDeadline(wait time.Duration) bool {
	deadline, ok := x.ctx.Deadline()
	return ok && time.Now().Add(wait).After(deadline)
}

// giveUp notes that the service at origin is not called again this fetch.
func (x *run) giveUp(origin string, err error) error {
	x.down[origin] = err
	return err
}

// once sends one try of a request. Only the status code is reported of a
// failed answer, never its reason phrase, which is the server's text.
func (x *run) once(q request, name string) ([]byte, outcome) {
	req, err := http.NewRequestWithContext(x.ctx, q.method, strings.TrimSuffix(q.base, "/")+q.path, bytes.NewReader(q.body))
	if err != nil {
		return nil, outcome{err: err}
	}
	if q.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", cmp.Or(x.UserAgent, UserAgent("")))
	resp, err := x.client.Do(req)
	if err != nil {
		var redirect *RedirectError
		switch {
		case context.Cause(x.ctx) != nil:
			return nil, outcome{err: fmt.Errorf("%s: %w", name, context.Cause(x.ctx))}
		case errors.As(err, &redirect):
			return nil, outcome{err: fmt.Errorf("%s: %w", name, redirect)}
		}
		return nil, outcome{err: err, retry: true}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // lets the connection serve again
		o := outcome{err: fmt.Errorf("%s: %d %s", name, resp.StatusCode, http.StatusText(resp.StatusCode))}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			o.retry, o.status = true, resp.StatusCode
			o.after, _ = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
		return nil, o
	}
	tooLarge := outcome{err: fmt.Errorf("%s: an answer over %d bytes, more than %s may hold", name, q.limit, q.holds)}
	if resp.ContentLength > q.limit {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, q.limit+1))
	switch {
	case context.Cause(x.ctx) != nil:
		return nil, outcome{err: fmt.Errorf("%s: %w", name, context.Cause(x.ctx))}
	case err != nil:
		return nil, outcome{err: fmt.Errorf("%s: %w", name, err), retry: true}
	case int64(len(data)) > q.limit:
		return nil, tooLarge
	}
	return data, outcome{}
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date
// (RFC 9110, 10.2.3), into the time it names.
func retryAfter(header string, now time.Time) (time.Time, bool) {
	header = strings.TrimSpace(header)
	if header == "" {
		return time.Time{}, false
	}
	if seconds, err := strconv.ParseUint(header, 10, 31); err == nil {
		return now.Add(time.Duration(seconds) * time.Second), true
	}
	if t, err := http.ParseTime(header); err == nil {
		return t, true
	}
	return time.Time{}, false
}
