package corpushandler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all" // the statements' tracks
)

func init() {
	caddy.RegisterModule(SeasonHandler{})
	httpcaddyfile.RegisterHandlerDirective("proveit_season", parseSeasonCaddyfile)
	// The handler answers everything itself: nothing may run before or after it.
	httpcaddyfile.RegisterDirectiveOrder("proveit_season", httpcaddyfile.Before, "respond")
}

// SeasonHandler serves the season service (tools/seasonservice;
// specification 3, 4, 7.4, 9.1) on its own site: enrollment,
// submissions, the season's state and its published files. Like the
// corpus's handler, it answers every request itself with a JSON body and
// never returns an error, so that no page of Caddy's reaches a caller.
//
// Its store is opened once per database and shared through a usage pool:
// a configuration reload provisions the new handler on the handle the old
// one holds, and the database is closed only when no configuration uses
// it any more.
type SeasonHandler struct {
	// Database is the store: a PostgreSQL URL (postgres:// or
	// postgresql://), so that replicas share one season, or else the path
	// of a SQLite file. It may be a placeholder such as
	// {env.SEASON_DATABASE} or {file./etc/proveit/season-db}, so that a
	// password never enters the configuration.
	Database string `json:"database"`
	// MaxConns bounds the store's connections (seasonstore.Options).
	MaxConns int `json:"max_conns,omitempty"`

	// TrustLayer is Trust Layer's origin, asked who a key is at
	// enrollment; TrustLayerTimeout bounds that call (default 5 s).
	TrustLayer        string         `json:"trust_layer"`
	TrustLayerTimeout caddy.Duration `json:"trust_layer_timeout,omitempty"`

	// Seasons are the seasons served.
	Seasons []SeasonSettings `json:"seasons"`

	// Limits are the rate limits; unset members take the service's
	// defaults.
	Limits SeasonLimits `json:"limits,omitempty"`

	service *seasonservice.Service
	poolKey *storeKey
	now     func() time.Time // the service's clock; tests set it
}

// SeasonSettings is one season served.
type SeasonSettings struct {
	Number int `json:"number"`
	// ReceiptKey is the file of the season's receipt key: an Ed25519
	// private key, PKCS #8 in PEM (openssl genpkey -algorithm ed25519). A
	// placeholder may name it.
	ReceiptKey string `json:"receipt_key"`
	// Tracks are the season's tracks; none means every track with the
	// record and statements the binary embeds (season 1).
	Tracks []SeasonTrack `json:"tracks,omitempty"`
}

// SeasonTrack is one track of a season: its record and statements (each
// empty for the binary's own) and its other published files, named one by
// one or by the folders that hold them.
type SeasonTrack struct {
	Track  string       `json:"track"`
	Record string       `json:"record,omitempty"`
	Tasks  string       `json:"tasks,omitempty"`
	Files  []SeasonFile `json:"files,omitempty"`
	// Published is a folder whose every regular file is published from
	// the opening (the catalogue), PublishedAfterClose one whose files
	// wait for the close (the manifest, the key, the salt): an operator
	// drops a file in and reloads. Either may be a placeholder; an empty
	// one publishes nothing, a missing folder is an error.
	Published           string `json:"published,omitempty"`
	PublishedAfterClose string `json:"published_after_close,omitempty"`
}

// SeasonFile is a published file: its name in the URL, the file it is
// read from at provisioning, and whether it waits for the close.
type SeasonFile struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	AfterClose bool   `json:"after_close,omitempty"`
}

// SeasonLimits are the rate limits of the service (seasonservice.Limits).
type SeasonLimits struct {
	EnrollPerKey     *SeasonRate `json:"enroll_per_key,omitempty"`
	EnrollPerAddress *SeasonRate `json:"enroll_per_address,omitempty"`
	SubmitPerKey     *SeasonRate `json:"submit_per_key,omitempty"`
	SubmitPerAddress *SeasonRate `json:"submit_per_address,omitempty"`
	Entries          int         `json:"entries,omitempty"`
}

// SeasonRate is a token bucket: burst calls at once, refilled at
// per_minute; a negative per_minute sets no limit.
type SeasonRate struct {
	PerMinute float64 `json:"per_minute"`
	Burst     int     `json:"burst"`
}

// CaddyModule returns the Caddy module information.
func (SeasonHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.proveit_season",
		New: func() caddy.Module { return new(SeasonHandler) },
	}
}

// seasonStores holds the stores open, by database, across configurations.
var seasonStores = caddy.NewUsagePool()

// storeKey names a store in the pool: the same database with the same
// options is one handle.
type storeKey struct {
	database string
	maxConns int
}

// pooledStore is a store in the pool, closed when its last user goes.
type pooledStore struct{ seasonstore.Store }

func (p pooledStore) Destruct() error { return p.Close() }

// seasonFileLimit bounds a file the handler reads at provisioning: a
// season's published files are a few MiB at most (the manifest).
var seasonFileLimit = proofs.Limit{What: "a season's published file", Bytes: 64 << 20}

// maxPublishedFiles bounds a published folder: a track publishes a
// handful of files.
const maxPublishedFiles = 64

// Provision reads the seasons' files and the receipt keys, and opens the
// store, or takes the one a previous configuration opened. A failure
// leaves a running server on its previous configuration.
func (h *SeasonHandler) Provision(ctx caddy.Context) error {
	logger := ctx.Logger()
	repl := newSettingsReplacer()
	database, err := repl.resolve(h.Database)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	database = strings.TrimSpace(database)
	if database == "" {
		return errors.New("database: a SQLite file's path or a PostgreSQL URL is required")
	}
	trustLayer, err := repl.resolve(h.TrustLayer)
	if err != nil {
		return fmt.Errorf("trust_layer: %w", err)
	}
	if len(h.Seasons) == 0 {
		return errors.New("no season configured")
	}
	seasons := make([]seasonservice.Season, 0, len(h.Seasons))
	for _, s := range h.Seasons {
		cs, err := s.load(repl)
		if err != nil {
			return fmt.Errorf("season %d: %w", s.Number, err)
		}
		seasons = append(seasons, cs)
	}

	key := storeKey{database: database, maxConns: h.MaxConns}
	value, _, err := seasonStores.LoadOrNew(key, func() (caddy.Destructor, error) {
		opening, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		store, err := openSeasonStore(opening, database, seasonstore.Options{MaxConns: h.MaxConns})
		if err != nil {
			return nil, err
		}
		return pooledStore{store}, nil
	})
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	h.poolKey = &key
	svc, err := seasonservice.New(seasonservice.Config{
		Store:         value.(pooledStore).Store,
		Seasons:       seasons,
		TrustLayer:    seasonservice.TrustLayer{URL: trustLayer, Timeout: time.Duration(h.TrustLayerTimeout)},
		Limits:        h.Limits.resolve(),
		ClientAddress: clientAddress,
		Logger:        logger,
		Clock:         h.now,
	})
	if err != nil {
		return err
	}
	h.service = svc
	// Neither the database's name (it may hold a password) nor a key.
	logger.Info("season service ready", zap.String("store", storeKind(database)), zap.Int("seasons", len(seasons)))
	return nil
}

// Cleanup hands the store back to the pool, which closes it once no
// configuration holds it.
func (h *SeasonHandler) Cleanup() error {
	if h.poolKey == nil {
		return nil
	}
	key := *h.poolKey
	h.poolKey = nil
	_, err := seasonStores.Delete(key)
	return err
}

// Validate checks that provisioning built the service.
func (h *SeasonHandler) Validate() error {
	if h.service == nil {
		return errors.New("handler not provisioned")
	}
	return nil
}

// ServeHTTP answers every request with the service's JSON.
func (h *SeasonHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	h.service.ServeHTTP(w, r)
	return nil
}

func storeKind(database string) string {
	if seasonstore.IsPostgres(database) {
		return "postgres"
	}
	return "sqlite"
}

func openSeasonStore(ctx context.Context, database string, opts seasonstore.Options) (seasonstore.Store, error) {
	return seasonstore.Open(ctx, database, opts)
}

// clientAddress is the address Caddy vouches for (its trusted proxies
// considered), for the service's per-address limits.
func clientAddress(r *http.Request) string {
	if ip, ok := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string); ok && ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (l SeasonLimits) resolve() seasonservice.Limits {
	rate := func(r *SeasonRate) seasonservice.Rate {
		if r == nil {
			return seasonservice.Rate{}
		}
		return seasonservice.Rate{PerMinute: r.PerMinute, Burst: r.Burst}
	}
	return seasonservice.Limits{
		EnrollPerKey: rate(l.EnrollPerKey), EnrollPerAddress: rate(l.EnrollPerAddress),
		SubmitPerKey: rate(l.SubmitPerKey), SubmitPerAddress: rate(l.SubmitPerAddress),
		Entries: l.Entries,
	}
}

// load reads a season's receipt key and its tracks' files.
func (s SeasonSettings) load(repl *settingsReplacer) (seasonservice.Season, error) {
	out := seasonservice.Season{Number: s.Number}
	keyFile, err := repl.resolve(s.ReceiptKey)
	if err != nil {
		return out, fmt.Errorf("receipt_key: %w", err)
	}
	if out.ReceiptKey, err = seasonservice.ReadReceiptKey(keyFile); err != nil {
		return out, fmt.Errorf("receipt_key: %w", err)
	}
	tracks := s.Tracks
	if len(tracks) == 0 {
		for _, t := range corpus.Tracks {
			tracks = append(tracks, SeasonTrack{Track: t.Name})
		}
	}
	for _, t := range tracks {
		ct, err := t.load(repl)
		if err != nil {
			return out, fmt.Errorf("track %q: %w", t.Track, err)
		}
		out.Tracks = append(out.Tracks, ct)
	}
	return out, nil
}

// load reads a track's record, statements and published files; an empty
// record or statements path means the binary's own.
func (t SeasonTrack) load(repl *settingsReplacer) (seasonservice.Track, error) {
	var out seasonservice.Track
	track, err := corpus.TrackNamed(t.Track)
	if err != nil {
		return out, err
	}
	read := func(setting, path string, embedded func(*corpus.Track) (string, []byte)) ([]byte, error) {
		resolved, err := repl.resolve(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", setting, err)
		}
		if resolved == "" && embedded != nil {
			_, data := embedded(track)
			return data, nil
		}
		if resolved == "" {
			return nil, fmt.Errorf("%s: no file named", setting)
		}
		// Read as anyone's file: a regular file, bounded, never a pipe
		// that would hold provisioning forever.
		data, err := proofs.ReadFolderFile(filepath.Dir(resolved), filepath.Base(resolved), seasonFileLimit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", setting, err)
		}
		return data, nil
	}
	if out.Record, err = read("record", t.Record, season.EmbeddedRecord); err != nil {
		return out, err
	}
	if out.Tasks, err = read("tasks", t.Tasks, season.EmbeddedTasks); err != nil {
		return out, err
	}
	files := slices.Clone(t.Files)
	for _, folder := range []struct {
		setting, path string
		afterClose    bool
	}{{"published", t.Published, false}, {"published_after_close", t.PublishedAfterClose, true}} {
		listed, err := listPublished(repl, folder.setting, folder.path, folder.afterClose)
		if err != nil {
			return out, err
		}
		files = append(files, listed...)
	}
	for _, f := range files {
		data, err := read("file "+f.Name, f.Path, nil)
		if err != nil {
			return out, err
		}
		out.Files = append(out.Files, seasonservice.File{Name: f.Name, Data: data, AfterClose: f.AfterClose})
	}
	return out, nil
}

// listPublished names the regular files directly in a published folder,
// in name order; a subfolder is skipped (the after-close folder may sit
// inside the other), anything else (a link, a pipe) is refused.
func listPublished(repl *settingsReplacer, setting, path string, afterClose bool) ([]SeasonFile, error) {
	dir, err := repl.resolve(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	if dir == "" {
		return nil, nil
	}
	folder, err := proofs.OpenFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	defer folder.Close()
	entries, err := folder.ReadDir(".", maxPublishedFiles)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	var files []SeasonFile
	for _, e := range entries {
		switch {
		case e.IsDir():
			continue
		case !e.Type().IsRegular():
			return nil, fmt.Errorf("%s: %s is not a regular file", setting, filepath.Join(dir, e.Name()))
		}
		files = append(files, SeasonFile{Name: e.Name(), Path: filepath.Join(dir, e.Name()), AfterClose: afterClose})
	}
	return files, nil
}

func parseSeasonCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	handler := new(SeasonHandler)
	err := handler.UnmarshalCaddyfile(h.Dispenser)
	return handler, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	proveit_season {
//	    database            <sqlite file|postgres URL|placeholder>
//	    max_conns           <n>
//	    trust_layer         <origin>
//	    trust_layer_timeout <duration>
//	    season <n> {
//	        receipt_key <file>
//	        track <name> {
//	            record <file>
//	            tasks  <file>
//	            file   <name> <path> [after_close]
//	            published             <folder>
//	            published_after_close <folder>
//	        }
//	    }
//	    limit <enroll_per_key|enroll_per_address|submit_per_key|submit_per_address> <per minute> <burst>
//	    limit_entries <n>
//	}
//
// Every setting may be given once (a track's file once per name): a
// second would silently override the first.
func (h *SeasonHandler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for d.NextBlock(0) {
		name := d.Val()
		// A season and a limit are checked once each by their own name.
		if name != "season" && name != "limit" {
			if seen[name] {
				return d.Errf("%s: already specified", name)
			}
			seen[name] = true
		}
		switch name {
		case "database", "trust_layer":
			value, err := oneArg(d)
			if err != nil {
				return err
			}
			if name == "database" {
				h.Database = value
			} else {
				h.TrustLayer = value
			}
		case "max_conns", "limit_entries":
			value, err := oneArg(d)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return d.Errf("%s: %q is not a positive integer", name, value)
			}
			if name == "max_conns" {
				h.MaxConns = n
			} else {
				h.Limits.Entries = n
			}
		case "trust_layer_timeout":
			value, err := oneArg(d)
			if err != nil {
				return err
			}
			timeout, err := caddy.ParseDuration(value)
			if err != nil || timeout <= 0 {
				return d.Errf("trust_layer_timeout: %q is not a duration", value)
			}
			h.TrustLayerTimeout = caddy.Duration(timeout)
		case "season":
			s, err := unmarshalSeason(d)
			if err != nil {
				return err
			}
			for _, other := range h.Seasons {
				if other.Number == s.Number {
					return d.Errf("season %d: already specified", s.Number)
				}
			}
			h.Seasons = append(h.Seasons, s)
		case "limit":
			if err := h.unmarshalLimit(d); err != nil {
				return err
			}
		default:
			return d.Errf("unrecognized subdirective %q", name)
		}
	}
	return nil
}

// oneArg is a setting's single argument.
func oneArg(d *caddyfile.Dispenser) (string, error) {
	args := d.RemainingArgs()
	if len(args) != 1 {
		return "", d.ArgErr()
	}
	return args[0], nil
}

func (h *SeasonHandler) unmarshalLimit(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) != 3 {
		return d.ArgErr()
	}
	perMinute, err := strconv.ParseFloat(args[1], 64)
	if err != nil {
		return d.Errf("limit %s: %q is not a rate per minute", args[0], args[1])
	}
	burst, err := strconv.Atoi(args[2])
	if err != nil || burst < 1 {
		return d.Errf("limit %s: %q is not a positive burst", args[0], args[2])
	}
	var into **SeasonRate
	switch args[0] {
	case "enroll_per_key":
		into = &h.Limits.EnrollPerKey
	case "enroll_per_address":
		into = &h.Limits.EnrollPerAddress
	case "submit_per_key":
		into = &h.Limits.SubmitPerKey
	case "submit_per_address":
		into = &h.Limits.SubmitPerAddress
	default:
		return d.Errf("limit: unknown limit %q", args[0])
	}
	if *into != nil {
		return d.Errf("limit %s: already specified", args[0])
	}
	*into = &SeasonRate{PerMinute: perMinute, Burst: burst}
	return nil
}

// unmarshalSeason reads one season block, the dispenser on its name.
func unmarshalSeason(d *caddyfile.Dispenser) (SeasonSettings, error) {
	var s SeasonSettings
	number, err := oneArg(d)
	if err != nil {
		return s, err
	}
	if s.Number, err = strconv.Atoi(number); err != nil || s.Number < 1 {
		return s, d.Errf("season: %q is not a season's number", number)
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch name := d.Val(); name {
		case "receipt_key":
			if seen[name] {
				return s, d.Errf("season %d: receipt_key: already specified", s.Number)
			}
			seen[name] = true
			if s.ReceiptKey, err = oneArg(d); err != nil {
				return s, err
			}
		case "track":
			t, err := unmarshalSeasonTrack(d)
			if err != nil {
				return s, err
			}
			if seen["track "+t.Track] {
				return s, d.Errf("season %d: track %s: already specified", s.Number, t.Track)
			}
			seen["track "+t.Track] = true
			s.Tracks = append(s.Tracks, t)
		default:
			return s, d.Errf("season %d: unrecognized subdirective %q", s.Number, name)
		}
	}
	return s, nil
}

// unmarshalSeasonTrack reads one track block, the dispenser on its name.
func unmarshalSeasonTrack(d *caddyfile.Dispenser) (SeasonTrack, error) {
	var t SeasonTrack
	var err error
	if t.Track, err = oneArg(d); err != nil {
		return t, err
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		switch name {
		case "record", "tasks", "published", "published_after_close":
			if seen[name] {
				return t, d.Errf("track %s: %s: already specified", t.Track, name)
			}
			seen[name] = true
			value, err := oneArg(d)
			if err != nil {
				return t, err
			}
			switch name {
			case "record":
				t.Record = value
			case "tasks":
				t.Tasks = value
			case "published":
				t.Published = value
			default:
				t.PublishedAfterClose = value
			}
		case "file":
			args := d.RemainingArgs()
			if len(args) < 2 || len(args) > 3 || len(args) == 3 && args[2] != "after_close" {
				return t, d.ArgErr()
			}
			if seen["file "+args[0]] {
				return t, d.Errf("track %s: file %s: already specified", t.Track, args[0])
			}
			seen["file "+args[0]] = true
			t.Files = append(t.Files, SeasonFile{Name: args[0], Path: args[1], AfterClose: len(args) == 3})
		default:
			return t, d.Errf("track %s: unrecognized subdirective %q", t.Track, name)
		}
	}
	return t, nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*SeasonHandler)(nil)
	_ caddy.CleanerUpper          = (*SeasonHandler)(nil)
	_ caddy.Validator             = (*SeasonHandler)(nil)
	_ caddyhttp.MiddlewareHandler = (*SeasonHandler)(nil)
	_ caddyfile.Unmarshaler       = (*SeasonHandler)(nil)
)
