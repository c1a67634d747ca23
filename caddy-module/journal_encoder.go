package corpushandler

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/logging"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

func init() {
	caddy.RegisterModule(JournalEncoder{})
}

// openInterfaceWarning is the record Caddy's admin endpoint writes whenever
// it does not check the Host of its requests (caddy's admin.go).
const openInterfaceWarning = "admin endpoint on open interface; host checking disabled"

// JournalEncoder encodes Caddy's own records with the encoder it wraps,
// and drops one false warning. Caddy never checks the Host of a request on
// a unix socket, where a Host means nothing and the socket's file mode is
// the access control, and its admin endpoint then warns, at every start and
// reload, that it is "on open interface": on the shipped socket (mode 0600,
// in a folder only the service's user may enter) a healthy start would
// teach an operator to ignore a warning. The warning is dropped for a unix
// socket only; for a TCP address, where it is true, it is kept.
type JournalEncoder struct {
	zapcore.Encoder `json:"-"`

	// WrappedRaw is the encoder that writes the records. Default: json.
	WrappedRaw json.RawMessage `json:"wrap,omitempty" caddy:"namespace=caddy.logging.encoders inline_key=format"`
}

// CaddyModule returns the Caddy module information.
func (JournalEncoder) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.logging.encoders.proveit_journal",
		New: func() caddy.Module { return new(JournalEncoder) },
	}
}

// Provision loads the wrapped encoder.
func (e *JournalEncoder) Provision(ctx caddy.Context) error {
	if e.WrappedRaw == nil {
		json := new(logging.JSONEncoder)
		if err := json.Provision(ctx); err != nil {
			return err
		}
		e.Encoder = json
		return nil
	}
	wrapped, err := ctx.LoadModule(e, "WrappedRaw")
	if err != nil {
		return fmt.Errorf("loading the wrapped encoder: %v", err)
	}
	e.Encoder = wrapped.(zapcore.Encoder)
	return nil
}

// Clone keeps the filter on the loggers zap derives.
func (e *JournalEncoder) Clone() zapcore.Encoder {
	return &JournalEncoder{Encoder: e.Encoder.Clone()}
}

var emptyRecords = buffer.NewPool()

// EncodeEntry encodes a record, or nothing for the warning about a unix socket.
func (e *JournalEncoder) EncodeEntry(entry zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	if entry.LoggerName == "admin" && entry.Message == openInterfaceWarning && onUnixSocket(fields) {
		return emptyRecords.Get(), nil
	}
	return e.Encoder.EncodeEntry(entry, fields)
}

// onUnixSocket tells whether the record's address is a unix socket's
// (Caddy writes them unix/PATH, with an optional |MODE).
func onUnixSocket(fields []zapcore.Field) bool {
	for _, f := range fields {
		if f.Key == "address" && f.Type == zapcore.StringType {
			return strings.HasPrefix(f.String, "unix/") || strings.HasPrefix(f.String, "unixpacket/")
		}
	}
	return false
}

// UnmarshalCaddyfile sets up the encoder from Caddyfile tokens. Syntax:
//
//	format proveit_journal {
//	    wrap <encoder> ...
//	}
func (e *JournalEncoder) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the encoder's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		if d.Val() != "wrap" {
			return d.Errf("unrecognized subdirective %q", d.Val())
		}
		if e.WrappedRaw != nil {
			return d.Err("wrap: already specified")
		}
		if !d.NextArg() {
			return d.ArgErr()
		}
		name := d.Val()
		unm, err := caddyfile.UnmarshalModule(d, "caddy.logging.encoders."+name)
		if err != nil {
			return err
		}
		enc, ok := unm.(zapcore.Encoder)
		if !ok {
			return d.Errf("module %s (%T) is not a log encoder", name, unm)
		}
		e.WrappedRaw = caddyconfig.JSONModuleObject(enc, "format", name, nil)
	}
	return nil
}

// Interface guards
var (
	_ zapcore.Encoder       = (*JournalEncoder)(nil)
	_ caddy.Provisioner     = (*JournalEncoder)(nil)
	_ caddyfile.Unmarshaler = (*JournalEncoder)(nil)
)
