// Command demoseason plays a small season of both tracks end to end on
// this machine, on loopback only, and publishes its Index (`make demo`).
//
// It starts the real corpus server (bin/caddy with the repository's
// Caddyfile) and the Trust Layer stand-in of package harness/trustlayer
// (test keys, a test TSA, a test Rekor log) in front of it, seals each
// track's pre-registration record with the seal's own code for a season
// window that covers the run, and anchors it through the stand-in before
// the opening, as the real record is anchored through Trust Layer. Then
// five enrollments per track play through the stand-in and the server with
// the reference participant (harness/participant): a reference run, a
// careful participant, one that hurries, one that guesses, and the careful
// one's operator enrolled again under a second DID bound to the same key.
// The stand-in's batches close, the season's closing passes, the key and
// salt are revealed, and what a season's close hands over is in the season
// folder (docs/scoring.md, "Publishing the Index"):
//
//	<out>/season/views/          proveit proofs fetch's views and Rekor entries
//	<out>/season/<track>/        inscriptions.json, soumissions/<id>/<task_id>.json,
//	                             cle.json, sel, preenregistrement.json and its
//	                             anchoring (preenregistrement.ancrage.json)
//	<out>/trust/                 the stand-in's trust material, in tools/proofs/trust's layout,
//	                             beside the season: a reader names what it trusts
//	<out>/record/<track>/        the record's scoring section, its proof's id and disclosure
//
// Then `proveit proofs fetch` reads the views from the stand-in, `proveit
// seal -verify` checks each record's own proof, `proveit index` builds the
// site in <out>/site and `proveit index -check` re-derives it; the Index's
// path is printed last. Everything stops by itself within -timeout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	_ "github.com/arkforge/proveit-corpus/tools/tracks/all" // every track's rulebook
)

func main() {
	cfg := config{stdout: os.Stdout}
	flag.StringVar(&cfg.repo, "repo", ".", "the repository's root: its corpus/saison-1, manifest/ and Caddyfile are the season's")
	flag.StringVar(&cfg.out, "out", ".run/demo", "the demo's folder, emptied first: season/, site/, record/, server/")
	flag.StringVar(&cfg.caddy, "caddy", "bin/caddy", "the corpus server's binary (make build)")
	flag.StringVar(&cfg.proveit, "proveit", "bin/proveit", "the toolbox's binary (make build)")
	flag.StringVar(&cfg.database, "database", "", "the season service's database: a PostgreSQL URL, or a SQLite file (default <out>/server/season.db)")
	flag.DurationVar(&cfg.window, "window", defaultWindow, "the season's length, from its opening to its closing: the play must end within it")
	flag.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "the longest the whole demo may take; everything it started stops then")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "demoseason: no arguments, only flags (-h lists them), not %q\n", flag.Arg(0))
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	d, err := playSeason(ctx, cfg)
	if err == nil {
		err = d.publish(ctx)
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (-timeout %s)", err, cfg.timeout)
		}
		fmt.Fprintln(os.Stderr, "demoseason:", err)
		os.Exit(1)
	}
}
