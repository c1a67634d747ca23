// Command demoseason plays a small season of both tracks end to end on
// this machine, on loopback only, and publishes its Index (`make demo`).
//
// It starts the real corpus server and season service (bin/caddy with the
// repository's Caddyfile) and the Trust Layer stand-in of package
// harness/trustlayer (test keys, a test TSA, a test Rekor log) in front of
// them. The operator's steps are docs/operating.md's timeline, each block
// read from the page and run as written with the run's own values: each
// track's record sealed for a season window that covers the run, the
// season service's files, the trust material checked against the
// stand-in's keys, each record anchored through the stand-in before the
// opening and its proof checked. Then five players per track play through
// the stand-in and the services with the reference participant
// (harness/participant): each signs up, binds a did:key, enrolls with the
// season service (the reference run by the timeline's proveit enroll) and
// submits there: a reference run, a careful participant, one that hurries,
// one that guesses, and the careful one's operator enrolling again. The
// stand-in's batches close, the season's closing passes, and the
// timeline's close exports each track from the service's database, reads
// the key and salt the service then publishes, fetches the proofs, checks
// each record and builds the Index:
//
//	<out>/season/views/          proveit proofs fetch's views and Rekor entries
//	<out>/season/<track>/        inscriptions.json, soumissions/<id>/<task_id>.json,
//	                             recus.json, cle.json, sel, preenregistrement.json
//	                             and its anchoring (preenregistrement.ancrage.json)
//	<out>/trust/                 the stand-in's trust material, in tools/proofs/trust's layout,
//	                             beside the season: a reader names what it trusts
//	<out>/record/<track>/        the record as sealed, before the season folder's copy
//	<out>/receipts/<track>/      each player's kept receipts
//	<out>/operator/              where the timeline's blocks run: bin/proveit and the
//	                             repository's corpus/, manifest/ and docs/
//
// The site is in <out>/site, re-derived by proveit index -check, and every
// player's receipts are checked with proveit receipt; the Index's path is
// printed last. Everything stops by itself within -timeout.
//
// With -rehearse (make rehearsal), a dress rehearsal a person drives by
// hand: the same start (the records sealed for a -window of 30 minutes by
// default, the corpus, the season service and the stand-in on loopback, the
// records anchored), then no players. It prints, with this machine's URLs
// and files, a participant's steps, from signing up with Trust Layer to a
// submission accepted with its receipt, and the operator's close, then
// keeps everything up until it is interrupted (SIGINT, SIGTERM) or
// -timeout passes, and stops cleanly (docs/rehearsal.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/arkforge/proveit-corpus/tools/tracks/all" // every track's rulebook
)

func main() {
	cfg := config{stdout: os.Stdout}
	var rehearsal bool
	flag.BoolVar(&rehearsal, "rehearse", false, "a dress rehearsal (make rehearsal): no players; print a participant's steps and the operator's close, and stay up until interrupted or -timeout")
	flag.StringVar(&cfg.repo, "repo", ".", "the repository's root: its corpus/saison-1, manifest/ and Caddyfile are the season's")
	flag.StringVar(&cfg.out, "out", "", "the run's folder, emptied first: season/, site/, record/, server/ (default .run/demo, with -rehearse .run/rehearsal)")
	flag.StringVar(&cfg.caddy, "caddy", "bin/caddy", "the corpus server's binary (make build)")
	flag.StringVar(&cfg.proveit, "proveit", "bin/proveit", "the toolbox's binary (make build)")
	flag.StringVar(&cfg.database, "database", "", "the season service's database: a PostgreSQL URL, or a SQLite file (default <out>/server/season.db)")
	flag.DurationVar(&cfg.window, "window", 0, fmt.Sprintf("the season's length, from its opening to its closing: the play must end within it (default %s, with -rehearse %s)", defaultWindow, rehearsalWindow))
	flag.DurationVar(&cfg.timeout, "timeout", 0, fmt.Sprintf("the longest the whole run may take; everything it started stops then (default %s, with -rehearse an hour after the closing)", demoTimeout))
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "demoseason: no arguments, only flags (-h lists them), not %q\n", flag.Arg(0))
		os.Exit(2)
	}
	cfg.defaults(rehearsal)
	// An interruption stops the run as its end does: the servers, the
	// stand-in and the private files.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	var err error
	if rehearsal {
		err = rehearse(ctx, cfg)
	} else {
		var d *demo
		if d, err = playSeason(ctx, cfg); err == nil {
			err = d.publish(ctx)
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("%w (-timeout %s)", err, cfg.timeout)
		case errors.Is(err, context.Canceled):
			err = fmt.Errorf("interrupted: %w", err)
		}
		fmt.Fprintln(os.Stderr, "demoseason:", err)
		os.Exit(1)
	}
}

// demoTimeout bounds the demo by default: its play takes about half a
// minute.
const demoTimeout = 5 * time.Minute

// defaults fills in what the flags left unset, the demo's or the
// rehearsal's.
func (cfg *config) defaults(rehearsal bool) {
	out, window := ".run/demo", defaultWindow
	if rehearsal {
		out, window = ".run/rehearsal", rehearsalWindow
	}
	if cfg.out == "" {
		cfg.out = out
	}
	if cfg.window <= 0 {
		cfg.window = window
	}
	if cfg.timeout <= 0 {
		cfg.timeout = demoTimeout
		if rehearsal {
			cfg.timeout = startLead + cfg.window + rehearsalAfter
		}
	}
}
