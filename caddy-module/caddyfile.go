package corpushandler

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("proveit_corpus", parseCaddyfile)
	// The handler answers everything itself: nothing may run before or after it.
	httpcaddyfile.RegisterDirectiveOrder("proveit_corpus", httpcaddyfile.Before, "respond")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	handler := new(Handler)
	err := handler.UnmarshalCaddyfile(h.Dispenser)
	return handler, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	proveit_corpus {
//	    secrets     <secret|placeholder>...
//	    corpus <track> {
//	        root            <folder>
//	        manifest        <file>
//	        manifest_sha256 <hex|placeholder>
//	    }
//	    hosts           <host>...
//	    maintenance     [on|off]
//	}
//
// A corpus block names one track's tree; there is one block per track
// served, and none means every track embedded in the binary. Every other
// subdirective may be given once, and each of a corpus block's once: a
// second would silently override the first, so it is refused, as Caddy's
// own modules do.
//
// Write secrets as runtime placeholders ({env.NAME}, {file.PATH}), not as
// {$NAME}: the latter is substituted when the Caddyfile is adapted and would
// put the value into the JSON config.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for d.NextBlock(0) {
		name := d.Val()
		if name == "secret" {
			name = "secrets"
		}
		if seen[name] {
			return d.Errf("%s: already specified", name)
		}
		if name != "corpus" {
			seen[name] = true
		}
		switch d.Val() {
		case "secrets", "secret":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			h.Secrets = append(h.Secrets, args...)
		case "corpus":
			c, err := unmarshalCorpus(d)
			if err != nil {
				return err
			}
			h.Corpora = append(h.Corpora, c)
		case "hosts":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			h.Hosts = append(h.Hosts, args...)
		case "maintenance":
			switch args := d.RemainingArgs(); {
			case len(args) == 0:
				h.Maintenance = true
			case len(args) > 1:
				return d.ArgErr()
			case args[0] == "on" || args[0] == "true":
				h.Maintenance = true
			case args[0] == "off" || args[0] == "false":
				h.Maintenance = false
			default:
				return d.Errf("maintenance: %q is neither on nor off", args[0])
			}
		default:
			return d.Errf("unrecognized subdirective %q", d.Val())
		}
	}
	return nil
}

// unmarshalCorpus reads one corpus block, the dispenser on its name.
func unmarshalCorpus(d *caddyfile.Dispenser) (Corpus, error) {
	var c Corpus
	if !d.NextArg() {
		return c, d.ArgErr()
	}
	c.Track = d.Val()
	if d.NextArg() {
		return c, d.ArgErr()
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		if seen[name] {
			return c, d.Errf("corpus %s: %s: already specified", c.Track, name)
		}
		seen[name] = true
		var into *string
		switch name {
		case "root":
			into = &c.Root
		case "manifest":
			into = &c.Manifest
		case "manifest_sha256":
			into = &c.ManifestSHA256
		default:
			return c, d.Errf("corpus %s: unrecognized subdirective %q", c.Track, name)
		}
		if !d.AllArgs(into) {
			return c, d.ArgErr()
		}
	}
	return c, nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
