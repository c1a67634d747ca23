// Command caddy is Caddy with its standard modules and the corpus server's
// (the module root github.com/arkforge/proveit-corpus: the handler
// proveit_corpus, the listener wrappers proveit_limits, proveit_guard and
// proveit_h2_guard, the app proveit_exclusive, the telemetry writer
// proveit_file and the journal's encoder proveit_journal), as xcaddy would
// build it.
package main

import (
	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	proveitcorpus "github.com/arkforge/proveit-corpus"
)

func main() {
	// `caddy version` names the corpus server's version before Caddy's.
	caddy.CustomVersion = "proveit-corpus " + proveitcorpus.Version()
	caddycmd.Main()
}
