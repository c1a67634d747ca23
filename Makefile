# The corpus server of the PROVE IT challenge.
#   make run    build everything and serve both embedded corpora on $(CORPUS_LISTEN)
#   make test   run every test
#   make demo   play a small season on loopback and build its Index
#   make rehearsal  the same season on loopback, for a person to play by hand

SHELL := /bin/bash
GO ?= go
BIN := bin
CADDY := $(BIN)/caddy
PROVEIT := $(BIN)/proveit
CORPUS_LISTEN ?= localhost:8080
SEASON_LISTEN ?= localhost:8090
RUN_DIR := .run
# The version both binaries report (caddy version, proveit -version).
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
GO_LDFLAGS := -X github.com/arkforge/proveit-corpus.stamped=$(VERSION)
# Fuzzing budgets are counts of executions, not durations: a duration races
# Go 1.26's fuzz coordinator at its deadline (golang/go#75804) and fails
# with "context deadline exceeded" on a loaded machine. About 10 s each here.
FUZZ_TARGET_EXECS ?= 300000x
FUZZ_JSON_EXECS ?= 100000x
FUZZ_PROOF_EXECS ?= 20000x

GO_SOURCES := $(shell find . -name '*.go' -not -path './.run/*') go.mod go.sum
CORPUS_FILES := $(shell find corpus manifest -type f -not -name '*.go')

.PHONY: all build run test vet cross unit fuzz lint solve verify manifest catalogue catalogue-check bench clean

all: build

build: $(CADDY) $(PROVEIT)

# The first build compiles Caddy and every module it holds: said before it
# starts, so that a first make run is not a silent wait.
$(CADDY): $(GO_SOURCES) $(CORPUS_FILES)
	@echo "Building $@ (Caddy with the corpus server) and $(PROVEIT): about 5 minutes on two cores with an empty Go build cache, seconds once it is filled."
	$(GO) build -ldflags '$(GO_LDFLAGS)' -o $@ ./tools/caddy

$(PROVEIT): $(GO_SOURCES) $(CORPUS_FILES)
	$(GO) build -ldflags '$(GO_LDFLAGS)' -o $@ ./tools/proveit

# Serve the embedded corpus locally, on CORPUS_LISTEN only. The secret comes
# from CORPUS_CHALLENGE_SECRET; when unset, one is generated once into
# $(RUN_DIR)/secret (ignored by git) and reused. Nothing here prints a
# secret: the curl line names where it is, never its value. Caddy's
# autosaved configuration and its local CA stay in $(RUN_DIR), not in the
# user's home, and the secrets folder is $(RUN_DIR)/secrets (secret.next,
# the pins), never the production one. The configuration is validated
# first (the secret, the corpus, an address another process serves), so
# that the banner and the curl lines follow only a configuration that
# starts; a refusal is Caddy's one error line.
#
# The season service answers on SEASON_LISTEN's port, on the same
# interfaces, its database in $(RUN_DIR)/season.db and its files in
# SEASON_RUN_DIR: a receipt key drawn once (a secret, so outside every work
# tree: in the user's state folder), each track's catalogue (published from
# the opening), manifest and key (after the close). The salt is its
# sealer's and is not there. Enrollment asks SEASON_TRUST_LAYER (Trust
# Layer itself by default) who a key is.
RUN_PORT = $(lastword $(subst :, ,$(CORPUS_LISTEN)))
SEASON_PORT = $(lastword $(subst :, ,$(SEASON_LISTEN)))
SEASON_RUN_DIR ?= $(or $(XDG_STATE_HOME),$(HOME)/.local/state)/proveit/run/saison-1
RUN_ENV = CORPUS_CHALLENGE_SECRET=$${CORPUS_CHALLENGE_SECRET:-$$(cat $(RUN_DIR)/secret)} \
	 CORPUS_SITE=http://$(CORPUS_LISTEN) CORPUS_OTHER_HOSTS=http://:$(RUN_PORT) \
	 CORPUS_HOSTS="$${CORPUS_HOSTS:-localhost 127.0.0.1 ::1}" CORPUS_BIND=$${CORPUS_BIND:-127.0.0.1} \
	 CORPUS_ADMIN=$${CORPUS_ADMIN:-localhost:2019} \
	 CORPUS_TELEMETRY_OUTPUT="proveit_file $(abspath $(RUN_DIR))/telemetry.log" CORPUS_ACCESS_OUTPUT="file $(RUN_DIR)/access.log" \
	 CORPUS_PROTOCOLS="h1 h2c" CORPUS_SECRETS_DIR=$${CORPUS_SECRETS_DIR:-$(abspath $(RUN_DIR))/secrets} \
	 XDG_CONFIG_HOME=$(abspath $(RUN_DIR))/config XDG_DATA_HOME=$(abspath $(RUN_DIR))/data \
	 SEASON_SERVICE=on SEASON_SITE=http://:$(SEASON_PORT) SEASON_DATABASE=$${SEASON_DATABASE:-$(abspath $(RUN_DIR))/season.db} \
	 SEASON_DIR=$(SEASON_RUN_DIR)

run: build
	@mkdir -p $(RUN_DIR)
	@if [ -z "$$CORPUS_CHALLENGE_SECRET" ]; then \
	  [ -s $(RUN_DIR)/secret ] || { umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $(RUN_DIR)/secret; }; \
	fi
	@for track in conformite generique; do \
	  mkdir -p $(SEASON_RUN_DIR)/$$track/apres-cloture; \
	  cp docs/catalogue/$$track.json $(SEASON_RUN_DIR)/$$track/catalogue.json; \
	  cp manifest/$$track.json $(SEASON_RUN_DIR)/$$track/apres-cloture/manifest.json; \
	done
	@cp corpus/saison-1/cle.json $(SEASON_RUN_DIR)/conformite/apres-cloture/cle.json
	@cp corpus/saison-1/cle-generique.json $(SEASON_RUN_DIR)/generique/apres-cloture/cle.json
	@[ -s $(SEASON_RUN_DIR)/receipt.key ] || $(PROVEIT) receipt-key -o $(SEASON_RUN_DIR)/receipt.key >/dev/null
	@checked=$$($(RUN_ENV) $(CADDY) validate --config Caddyfile --adapter caddyfile 2>&1) || { \
	  why=$$(printf '%s\n' "$$checked" | grep -a '"level":"error"' | tail -n 1 | sed -e 's/^.*"msg":"//' -e 's/"}$$//' -e 's/\\"/"/g'); \
	  echo "make run: the server cannot start: $${why:-$$(printf '%s\n' "$$checked" | tail -n 1)}"; exit 1; }
	@if [ -z "$$CORPUS_CHALLENGE_SECRET" ]; then \
	  echo "Secret in $(RUN_DIR)/secret (kept out of git)."; \
	  where='$$(cat $(RUN_DIR)/secret)'; \
	else \
	  where='$$CORPUS_CHALLENGE_SECRET'; \
	fi; \
	echo "Serving both embedded corpora (conformite, generique) on http://$(CORPUS_LISTEN)"; \
	echo "Try:  curl -s -H \"X-Challenge-Secret: $$where\" http://$(CORPUS_LISTEN)/referentiel"; \
	echo "      curl -s -H \"X-Challenge-Secret: $$where\" http://$(CORPUS_LISTEN)/regles-achat"; \
	echo "Telemetry: $(RUN_DIR)/telemetry.log"; \
	echo "Season service on http://$(SEASON_LISTEN), database $(RUN_DIR)/season.db (docs/participating.md):"; \
	echo "Try:  curl -s http://$(SEASON_LISTEN)/v1/season/1"
	@$(RUN_ENV) exec $(CADDY) run --config Caddyfile --adapter caddyfile

# Every test: static checks, unit and integration tests (which start the
# real binary, the end-to-end scoring chain among them), the manifest,
# catalogue and corpus checks, then each fuzz target briefly. The cross
# builds are make cross, which CI runs after it (.ci/run).
test: vet verify catalogue-check lint solve unit fuzz

# Everything builds wherever Caddy does: for every target, every package is
# compiled and its commands linked (go build, which writes nothing for
# several packages), and every package with its tests is type-checked and
# vetted (go vet, which neither compiles a command's own code nor links it).
# Eight toolchain targets from a cold cache take about 25 minutes on two
# cores: CI runs it after make test; run it before changing a build-tagged
# file.
CROSS_TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64 freebsd/arm64

cross:
	@for target in $(CROSS_TARGETS); do \
	  echo "GOOS=$${target%/*} GOARCH=$${target#*/} $(GO) build ./... && $(GO) vet ./..."; \
	  GOOS=$${target%/*} GOARCH=$${target#*/} $(GO) build ./... || exit 1; \
	  GOOS=$${target%/*} GOARCH=$${target#*/} $(GO) vet ./... || exit 1; \
	done

# Static checks, and no build output in git: a tracked file that starts
# as an executable does (ELF, Mach-O, PE); .gitignore keeps bin/ and the
# commands' binaries out.
vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	@built=$$(git ls-files -z | xargs -0 sh -c 'for f; do case $$(od -An -tx1 -N4 "$$f" 2>/dev/null | tr -d " \n") in 7f454c46|cffaedfe|cefaedfe|feedfacf|feedface|cafebabe|4d5a*) echo "$$f";; esac; done' sh); \
	test -z "$$built" || { echo "$$built"; echo "vet: the tracked files above are build output (executables): git rm --cached them"; exit 1; }

# Test binaries are linked without DWARF (-ldflags=-w): a debugger's tables,
# which no test reads and a panic's trace does not need, take about a
# third of each link, and make test links some sixty binaries. go test's
# own vet pass is off (-vet=off): its checks are a subset of make vet's,
# which make test runs first over the same packages and their tests.
TEST_FLAGS := -vet=off -ldflags=-w

# One package's tests more at a time than there are cores (go test's
# default is one a core): most of a test binary's time is spent waiting on
# the servers, browsers and databases it starts, and meanwhile the next
# package compiles and links. On two cores, three at a time took the unit
# tests from about 250 s to about 180 s with a warm cache.
UNIT_PACKAGES ?= $(shell echo $$(( $$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2) + 1 )))

unit: build
	CORPUS_CADDY_BIN=$(abspath $(CADDY)) CORPUS_PROVEIT_BIN=$(abspath $(PROVEIT)) $(GO) test -p $(UNIT_PACKAGES) $(TEST_FLAGS) -count=1 ./...

fuzz:
	$(GO) test $(TEST_FLAGS) -run '^$$' -fuzz '^FuzzCheckTarget$$' -fuzztime $(FUZZ_TARGET_EXECS) ./corpus
	$(GO) test $(TEST_FLAGS) -run '^$$' -fuzz '^FuzzParseCanonical$$' -fuzztime $(FUZZ_JSON_EXECS) ./manifest/pyjson
	$(GO) test $(TEST_FLAGS) -run '^$$' -fuzz '^FuzzNodeReadsAsTheTree$$' -fuzztime $(FUZZ_PROOF_EXECS) ./manifest/pyjson
	$(GO) test $(TEST_FLAGS) -run '^$$' -fuzz '^FuzzParseView$$' -fuzztime $(FUZZ_PROOF_EXECS) ./tools/proofs
	$(GO) test $(TEST_FLAGS) -run '^$$' -fuzz '^FuzzRekorEntry$$' -fuzztime $(FUZZ_PROOF_EXECS) ./tools/proofs
	$(GO) test $(TEST_FLAGS) -run '^$$' -fuzz '^FuzzToken$$' -fuzztime $(FUZZ_PROOF_EXECS) ./tools/proofs

verify: $(PROVEIT)
	$(PROVEIT) verify

lint: $(PROVEIT)
	$(PROVEIT) lint

# The keys: each agrees with the solver and meets the formula rules, and is
# the one its design derives.
solve: $(PROVEIT)
	$(PROVEIT) solve
	$(PROVEIT) key -check

manifest: $(PROVEIT)
	$(PROVEIT) manifest

# The public catalogue of each track (docs/catalogue), and its check: the
# checked-in files are the ones built, and nothing published at the opening
# names an absent reference or holds the manifest.
catalogue: $(PROVEIT)
	$(PROVEIT) catalogue

catalogue-check: $(PROVEIT)
	$(PROVEIT) catalogue -check

# Benchmarks, written to docs/performance.md: the corpus server against
# Caddy's respond and file_server and nginx, the manifest tool against a
# Python reference and sha256sum, the tree reader against the system-call
# reader it replaced, the Index against proofs verify of its season's
# proofs (harness/bench). Needs wrk and nginx from Debian's
# packages: installed when run as root, named otherwise. About ten minutes;
# run it on an idle machine. BENCH_FLAGS passes flags to harness/bench.
BENCH_TOOLS := wrk nginx

$(BIN)/bench: $(GO_SOURCES) harness/bench/mix.lua
	$(GO) build -o $@ ./harness/bench

bench: build $(BIN)/bench
	@missing=$$(for t in $(BENCH_TOOLS); do command -v $$t >/dev/null || test -x /usr/sbin/$$t || echo $$t; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    export DEBIAN_FRONTEND=noninteractive; apt-get update && apt-get install -y $$missing || exit 1; \
	    service nginx stop >/dev/null 2>&1 || true; \
	  else \
	    echo "make bench needs $$missing: apt-get install -y $$missing (as root)"; exit 1; \
	  fi; \
	fi
	PATH="$$PATH:/usr/sbin" $(BIN)/bench -caddy $(CADDY) -proveit $(PROVEIT) -go $(GO) -out docs/performance.md $(BENCH_FLAGS)

clean:
	rm -rf $(BIN) $(RUN_DIR)

# A small season of both tracks played end to end on loopback
# (harness/demoseason): the real corpus server and season service (one
# bin/caddy, the repository's Caddyfile), the Trust Layer stand-in, five
# players a track who sign up, bind a did:key, enroll with the service (the
# reference run by proveit enroll) and submit to it; the close exported by
# proveit close, the proofs fetched, the Index built in $(RUN_DIR)/demo/site
# and re-derived by proveit index -check, every player's receipts checked.
# About half a minute, most of it waiting for the season's closing.
# DEMO_FLAGS passes flags to it: -database postgres://... plays it on
# PostgreSQL.
.PHONY: demo demo-screenshot
demo: build
	$(GO) run ./harness/demoseason -caddy $(CADDY) -proveit $(PROVEIT) -out $(RUN_DIR)/demo $(DEMO_FLAGS)

# A dress rehearsal of the season, driven by hand (harness/demoseason
# -rehearse, docs/rehearsal.md): the same start as make demo (each track's
# record sealed for a 30-minute window, bin/caddy serving the corpus and
# the season service, the Trust Layer stand-in, the records anchored
# through it), then no players. It prints a participant's steps, curl and
# bin/proveit lines with this machine's URLs and files, from signing up to
# a submission accepted with its receipt, and the operator's close, then
# keeps everything up until Ctrl-C (or -timeout), and stops it all. Its
# folder is $(RUN_DIR)/rehearsal; the private files (the service's receipt
# key, the participant's did:key) are outside every work tree and go with
# it. REHEARSAL_FLAGS passes flags to it: -window 10m, -database
# postgres://...
.PHONY: rehearsal
rehearsal: build
	$(GO) run ./harness/demoseason -rehearse -caddy $(CADDY) -proveit $(PROVEIT) -out $(RUN_DIR)/rehearsal $(REHEARSAL_FLAGS)

# The screenshot of the demo season's Index kept in docs/, taken by the
# test that reads its pages in headless Chromium (harness/demoseason).
demo-screenshot: build
	CORPUS_CADDY_BIN=$(abspath $(CADDY)) CORPUS_PROVEIT_BIN=$(abspath $(PROVEIT)) \
	  $(GO) test -count=1 -run '^TestIndexInBrowser$$' ./harness/demoseason -args -screenshot $(abspath docs/index-demo.png)

# The fault tests of the three topologies (Caddy alone, nginx in front of
# Caddy, nginx alone; harness/frontal), with their figures written to
# docs/reliability.md. Needs nginx from Debian's package. About two minutes.
.PHONY: reliability
reliability: build
	PROVEIT_RELIABILITY_REPORT=$(abspath docs/reliability.md) CORPUS_CADDY_BIN=$(abspath $(CADDY)) \
	  $(GO) test -count=1 -v ./harness/frontal
