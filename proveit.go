// Package proveitcorpus is the corpus server of the PROVE IT challenge as a
// Caddy plugin: importing it registers the handler
// (http.handlers.proveit_corpus, directive proveit_corpus), the listener
// wrappers (caddy.listeners.proveit_limits, caddy.listeners.proveit_guard,
// caddy.listeners.proveit_h2_guard), the app proveit_exclusive (global
// option proveit_exclusive: no start on an address another process
// serves), the telemetry writer
// (caddy.logging.writers.proveit_file) and the encoder of Caddy's own log
// (caddy.logging.encoders.proveit_journal). It is what xcaddy builds in:
//
//	xcaddy build --with github.com/arkforge/proveit-corpus=<checkout>
package proveitcorpus

import (
	"runtime/debug"

	_ "github.com/arkforge/proveit-corpus/caddy-module" // registers the modules
)

// ModulePath is this module's path.
const ModulePath = "github.com/arkforge/proveit-corpus"

// stamped is the version `make build` links in: `git describe` of the
// checkout (-ldflags -X github.com/arkforge/proveit-corpus.stamped=...).
var stamped string

// Version is this module's version: the one `make build` stamped; else, as
// the build recorded it, the version required (with its replacement, if
// any) when the module is a dependency (a Caddy built with xcaddy), or the
// main module's, which is "(devel)" unless Go stamped it from the
// checkout's commit.
func Version() string {
	if stamped != "" {
		return stamped
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if info.Main.Path == ModulePath {
		return info.Main.Version
	}
	for _, dep := range info.Deps {
		if dep.Path != ModulePath {
			continue
		}
		if r := dep.Replace; r != nil {
			if r.Version != "" {
				return dep.Version + " => " + r.Path + " " + r.Version
			}
			return dep.Version + " => " + r.Path
		}
		return dep.Version
	}
	return "unknown"
}
