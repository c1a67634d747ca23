// Command caddy is Caddy with its standard modules and the corpus handler
// (http.handlers.proveit_corpus, Caddyfile directive proveit_corpus).
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/arkforge/proveit-corpus/caddy-module"
)

func main() {
	caddycmd.Main()
}
