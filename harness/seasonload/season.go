// Package seasonload drives the season service (tools/seasonservice, which
// bin/caddy's proveit_season handler serves) as a season's deadline does: a
// season's private folder whose records are sealed to be open now, the
// shipped Caddyfile with its per-address rate limits lifted (a crowd on one
// loopback address), participants enrolled through the Trust Layer
// stand-in, then every enrollment's submissions handed in at once by
// concurrent clients, each answer kept; and a track's export held to what
// those answers acknowledged.
//
// The benchmark's season part (harness/bench) and the season service's
// fault tests (harness/frontal) share it. Like the rest of harness/, it is
// never deployed: everything it starts listens on loopback only.
package seasonload

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/privatefile"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"

	// Every track of the season, for its statements and rulebook.
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"
)

// Number is the season the service serves (the shipped Caddyfile's).
const Number = 1

// Folder is a season's private folder as the shipped Caddyfile's
// SEASON_DIR names it, with each track's pre-registration record beside.
type Folder struct {
	// Dir is SEASON_DIR: receipt.key, and for each track <track>/ and
	// <track>/apres-cloture/ (published files, none here).
	Dir        string
	ReceiptKey ed25519.PrivateKey
	// Records are each track's record, by track name: what
	// SEASON_CONFORMITE_RECORD and SEASON_GENERIQUE_RECORD name.
	Records map[string]string
}

// NewFolder writes a season's private folder into dir, which must be
// outside every git work tree (a receipt key and salts are secrets): a
// receipt key drawn as `proveit receipt-key` draws it, each track's empty
// published folders, and each track's record sealed from the repository
// at repo for window, as `proveit seal` seals it (its salt under dir/sel,
// which the service never reads).
func NewFolder(repo, dir string, window proofs.Window) (*Folder, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	pemBytes, _, err := seasonservice.NewReceiptKey()
	if err != nil {
		return nil, err
	}
	keyFile := filepath.Join(dir, "receipt.key")
	if err := privatefile.Create(keyFile, pemBytes); err != nil {
		return nil, err
	}
	f := &Folder{Dir: dir, Records: map[string]string{}}
	if f.ReceiptKey, err = seasonservice.ReadReceiptKey(keyFile); err != nil {
		return nil, err
	}
	for _, track := range corpus.Tracks {
		if err := os.MkdirAll(filepath.Join(dir, track.Name, "apres-cloture"), 0o755); err != nil {
			return nil, err
		}
		record := filepath.Join(dir, "records", track.Name, "preenregistrement.json")
		if err := Seal(repo, track, record, filepath.Join(dir, "sel", track.Name), window); err != nil {
			return nil, err
		}
		f.Records[track.Name] = record
	}
	return f, nil
}

// Seal writes track's pre-registration record for window at record, its
// salt in the new private file salt (outside every git work tree): the
// repository's manifest, statements and key at repo, and a scoring
// section written beside the record, as `proveit seal -opening -closing`
// seals them.
func Seal(repo string, track *corpus.Track, record, salt string, window proofs.Window) error {
	for _, dir := range []string{filepath.Dir(record), filepath.Dir(salt)} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	read := func(rel string) (seal.File, error) {
		data, err := os.ReadFile(filepath.Join(repo, rel))
		return seal.File{Name: rel, Data: data}, err
	}
	var files seal.Files
	var err error
	if files.Manifest, err = read(filepath.Join("manifest", manifest.FileName(track))); err != nil {
		return err
	}
	if files.Tasks, err = read(season.TasksFile(track)); err != nil {
		return err
	}
	if files.Key, err = read(season.KeyFile(track)); err != nil {
		return err
	}
	tasks, err := season.DecodeTasks(files.Tasks.Name, files.Tasks.Data)
	if err != nil {
		return err
	}
	files.ScoringSection = seal.File{Name: filepath.Join(filepath.Dir(record), "bareme.md"),
		Data: []byte("## Barème de la piste " + track.Name + " (harness/seasonload)\n")}
	if err := os.WriteFile(files.ScoringSection.Name, files.ScoringSection.Data, 0o644); err != nil {
		return err
	}
	_, err = seal.Seal(record, salt, track.Name, tasks.Season, window, files, false)
	return err
}

// OpenWindow is a season open from an hour before now to six hours after:
// long enough for any run, and every receipt of it dated inside.
func OpenWindow(now time.Time) proofs.Window {
	now = now.UTC().Truncate(time.Second)
	return proofs.Window{Opening: now.Add(-time.Hour), Closing: now.Add(6 * time.Hour)}
}

// ClosedWindow is a season whose close passed a minute before now: the
// record a service is restarted with to be past its deadline.
func ClosedWindow(now time.Time) proofs.Window {
	now = now.UTC().Truncate(time.Second)
	return proofs.Window{Opening: now.Add(-2 * time.Hour), Closing: now.Add(-time.Minute)}
}

// Service is what the shipped Caddyfile is told, through its SEASON_*
// variables, to serve the season service with.
type Service struct {
	Folder *Folder
	// Database is SEASON_DATABASE: a SQLite file or a postgres:// URL.
	Database string
	// TrustLayer is the origin enrollment asks who a key is.
	TrustLayer string
	// Port is the season site's loopback port (SEASON_SITE http://:Port,
	// bound where the Caddyfile's CORPUS_BIND says).
	Port int
	// Records override the folder's records by track (a closed one).
	Records map[string]string
}

// Env is the Caddyfile's variables for the service.
func (s Service) Env() map[string]string {
	env := map[string]string{
		"SEASON_SERVICE":     "on",
		"SEASON_SITE":        fmt.Sprintf("http://:%d", s.Port),
		"SEASON_DATABASE":    s.Database,
		"SEASON_TRUST_LAYER": s.TrustLayer,
		"SEASON_DIR":         s.Folder.Dir,
	}
	for track, record := range s.Folder.Records {
		env["SEASON_"+strings.ToUpper(track)+"_RECORD"] = record
	}
	for track, record := range s.Records {
		env["SEASON_"+strings.ToUpper(track)+"_RECORD"] = record
	}
	return env
}

// URL is the season site's origin on loopback.
func (s Service) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", s.Port) }

// liftedLimits are the rate limits the load's Caddyfile sets: none per
// address, since every client of a load shares one loopback address; the
// per-key limits stay the service's defaults (a participant's ten
// submissions are well within their burst).
var liftedLimits = []string{
	"limit enroll_per_address -1 1",
	"limit submit_per_address -1 1",
}

// seasonDirective opens the season handler's block in the shipped
// Caddyfile.
const seasonDirective = "\tproveit_season {\n"

// WriteCaddyfile writes to path the shipped Caddyfile with the season
// handler's per-address rate limits lifted, and nothing else changed: the
// service is measured as shipped, save for the limits a crowd on one
// address would hit.
func WriteCaddyfile(shipped, path string) error {
	data, err := os.ReadFile(shipped)
	if err != nil {
		return err
	}
	text := string(data)
	if n := strings.Count(text, seasonDirective); n != 1 {
		return fmt.Errorf("%s: want one %q, found %d", shipped, strings.TrimSpace(seasonDirective), n)
	}
	limits := seasonDirective + "\t\t# Lifted by harness/seasonload: a load's clients share one address.\n"
	for _, l := range liftedLimits {
		limits += "\t\t" + l + "\n"
	}
	return os.WriteFile(path, []byte(strings.Replace(text, seasonDirective, limits, 1)), 0o644)
}

// WaitReady waits until the season service answers its state, at most
// limit.
func WaitReady(url string, limit time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(limit)
	var last error
	for time.Now().Before(deadline) {
		resp, err := client.Get(fmt.Sprintf("%s/v1/season/%d", url, Number))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		last = err
		time.Sleep(10 * time.Millisecond)
	}
	return errors.Join(fmt.Errorf("the season service at %s did not answer within %s", url, limit), last)
}
