// Package fetch reads the public views of proofs from Trust Layer and the
// Rekor entries of their batches into a views folder (package proofs says
// its layout), so that a replay needs nothing but files. An anchored view
// never changes and an entry never does: each is read once and kept; a
// pending view is read again until its batch is anchored.
package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

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

// maxAnswer bounds one answer read into memory: 50 views or one entry.
const maxAnswer = BatchSize*proofs.MaxViewSize + 4096

// publicFile is the permission of the views and entries written: public
// material, which anyone replaying the scoring reads.
const publicFile os.FileMode = 0o644

// Fetcher reads views and entries into Dir.
type Fetcher struct {
	Client     *http.Client
	TrustLayer string // base URL of Trust Layer
	Rekor      string // base URL of the Rekor log
	Dir        string // the views folder
	// Attempts bounds the tries of one request; a try is repeated only on
	// a network error, a 429 or a 5xx.
	Attempts int
	// Backoff is the wait before the second try, doubled for each next one.
	Backoff time.Duration
}

// Report says what a fetch did.
type Report struct {
	Read, Kept  int // views read from Trust Layer, views already settled on disk
	EntriesRead int
	EntriesKept int
	Pending     []string // proofs whose batch is not anchored yet
	Errors      []error  // one per proof or entry that could not be read
}

// Fetch reads the views of ids not yet settled in Dir, then the Rekor entry
// of every settled view that names one. A failure is reported per proof and
// does not stop the others.
func (f *Fetcher) Fetch(ctx context.Context, ids []string) (*Report, error) {
	if err := os.MkdirAll(filepath.Join(f.Dir, "rekor"), 0o755); err != nil {
		return nil, err
	}
	r := &Report{}
	var missing []string
	views := map[string]*proofs.View{}
	for _, id := range ids {
		if !proofs.ValidProofID(id) {
			r.Errors = append(r.Errors, &proofs.ProofIDError{ID: id})
			continue
		}
		v, err := proofs.ReadView(f.Dir, id)
		switch {
		case err == nil && v.Settled():
			r.Kept++
			views[id] = v
		case err == nil || errors.Is(err, fs.ErrNotExist):
			missing = append(missing, id)
		default:
			missing = append(missing, id) // a damaged file is read again
		}
	}
	for batch := range slices.Chunk(missing, BatchSize) {
		got, err := f.readViews(ctx, batch)
		if err != nil {
			for _, id := range batch {
				r.Errors = append(r.Errors, fmt.Errorf("%s: %w", id, err))
			}
			continue
		}
		for _, id := range batch {
			v, err := f.keepView(id, got[id])
			if err != nil {
				r.Errors = append(r.Errors, err)
				continue
			}
			r.Read++
			views[id] = v
		}
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
		if _, err := os.Stat(proofs.EntryFile(f.Dir, uuid)); err == nil {
			r.EntriesKept++
			continue
		}
		if err := f.keepEntry(ctx, uuid); err != nil {
			r.Errors = append(r.Errors, fmt.Errorf("Rekor entry %s: %w", uuid, err))
			continue
		}
		r.EntriesRead++
	}
	return r, nil
}

// readViews asks Trust Layer for up to BatchSize views at once.
func (f *Fetcher) readViews(ctx context.Context, ids []string) (map[string]json.RawMessage, error) {
	body, err := json.Marshal(map[string][]string{"proof_ids": ids})
	if err != nil {
		return nil, err
	}
	data, err := f.do(ctx, http.MethodPost, strings.TrimSuffix(f.TrustLayer, "/")+"/v1/proofs", body)
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

// keepView checks a view Trust Layer served and writes it as served.
func (f *Fetcher) keepView(id string, raw json.RawMessage) (*proofs.View, error) {
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
	return v, atomicfile.Replace(proofs.ViewFile(f.Dir, id), raw, publicFile)
}

// keepEntry reads one Rekor entry and writes it as Rekor served it.
func (f *Fetcher) keepEntry(ctx context.Context, uuid string) error {
	data, err := f.do(ctx, http.MethodGet, strings.TrimSuffix(f.Rekor, "/")+"/api/v1/log/entries/"+uuid, nil)
	if err != nil {
		return err
	}
	got, err := proofs.ParseRekorEntry(data)
	if err != nil {
		return err
	}
	if got != uuid {
		return fmt.Errorf("Rekor answered the entry %s", got)
	}
	return atomicfile.Replace(proofs.EntryFile(f.Dir, uuid), data, publicFile)
}

// do sends one request, tried again on a network error, a 429 or a 5xx,
// and returns the body of a 200.
func (f *Fetcher) do(ctx context.Context, method, url string, body []byte) ([]byte, error) {
	attempts := max(f.Attempts, 1)
	wait := f.Backoff
	var last error
	for try := 0; try < attempts; try++ {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait):
			}
			wait *= 2
		}
		data, retry, err := f.once(ctx, method, url, body)
		if err == nil {
			return data, nil
		}
		last = err
		if !retry {
			break
		}
	}
	return nil, last
}

func (f *Fetcher) once(ctx context.Context, method, url string, body []byte) (data []byte, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, true, err
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	switch {
	case err != nil:
		return nil, true, err
	case len(data) > maxAnswer:
		return nil, false, fmt.Errorf("%s %s: an answer over %d bytes", method, req.URL.Path, maxAnswer)
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, true, fmt.Errorf("%s %s: %s", method, req.URL.Path, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("%s %s: %s", method, req.URL.Path, resp.Status)
	}
	return data, false, nil
}
