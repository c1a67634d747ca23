package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// readsTrack are the commands that read a track, each of which takes
// -track.
var readsTrack = []string{"catalogue", "hash", "lint", "manifest", "nginx", "probe", "score", "seal", "solve", "verify"}

// takesArgs are the commands that take arguments after their flags, with a
// command line that has one too many.
var takesArgs = map[string][]string{
	"hash":    {"hash", "/referentiel", "/regles-achat"},
	"score":   nil, // any number of submissions
	"receipt": nil, // any number of receipts
}

// TestConvention holds every command to the one convention: -h, -help and
// --help print its help, which names the exit statuses, and exit 0; an
// unknown flag, an unknown track and a stray argument exit 2 with one line
// naming it, before any work.
func TestConvention(t *testing.T) {
	inRepoRoot(t)
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var help string
			for _, flag := range []string{"-h", "-help", "--help"} {
				code, out, errOut := runCLI(name, flag)
				require.Equal(t, 0, code, errOut)
				assert.Empty(t, errOut)
				assertNamesExitStatuses(t, out)
				assert.Contains(t, out, "usage: proveit "+name)
				help = out
			}
			code, out, _ := runCLI("help", name)
			assert.Equal(t, 0, code)
			assert.Equal(t, help, out, "proveit help %s is %s -h", name, name)

			assertBadUsage(t, []string{name, "-nope"}, "-nope")
			if strings.Contains(help, "  -track ") {
				assertBadUsage(t, []string{name, "-track", "nope"}, `unknown track "nope"`)
			} else {
				assert.NotContains(t, readsTrack, name, "%s reads a track: it takes -track", name)
			}
			stray, takes := takesArgs[name]
			if !takes {
				stray = []string{name, "extra"}
			}
			if stray != nil {
				assertBadUsage(t, stray, `"`+stray[len(stray)-1]+`"`)
			}
		})
	}

	code, out, _ := runCLI("--help")
	assert.Equal(t, 0, code)
	assertNamesExitStatuses(t, out)
	for _, name := range names {
		assert.Contains(t, out, "  "+name+" ")
	}
	code, out, errOut := runCLI("-version")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, version()+"\n", out)
	code, out, _ = runCLI("--version")
	assert.Equal(t, 0, code)
	assert.Equal(t, version()+"\n", out)
	assertBadUsage(t, []string{"-nope"}, `unknown flag "-nope"`)
	assertBadUsage(t, []string{"nope"}, `unknown command "nope"`)
}

// exitStatuses is how a help text names the three exit statuses.
var exitStatuses = regexp.MustCompile(`(?s)Exit status: 0 done.*; 1 a check failed.*; 2 bad usage or bad input`)

func assertNamesExitStatuses(t *testing.T, help string) {
	t.Helper()
	assert.Regexp(t, exitStatuses, help)
}

// assertBadUsage runs a command line that must exit 2 with one line on
// standard error naming want, and nothing on standard output.
func assertBadUsage(t *testing.T, args []string, want string) {
	t.Helper()
	assertOneLine(t, args, 2, want)
}

func assertOneLine(t *testing.T, args []string, code int, want string) {
	t.Helper()
	got, out, errOut := runCLI(args...)
	assert.Equal(t, code, got, "%q: %s", args, errOut)
	assert.Empty(t, out, "%q", args)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "%q: one line: %s", args, errOut)
	assert.Contains(t, errOut, want, "%q", args)
}

// TestEarlyErrors: an error that would make every check fail alike, or
// that is no check at all, is one line naming its cause.
func TestEarlyErrors(t *testing.T) {
	inRepoRoot(t)
	dead := "http://" + deadAddress(t)
	t.Setenv("CORPUS_CHALLENGE_SECRET", strings.Repeat("d", 64))
	t.Setenv("CORPUS_CHALLENGE_SECRET_NEXT", "")
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"lint of a missing tree", []string{"lint", "-track", "conformite", "-tree", "/nonexistent"}, 2, "-tree /nonexistent: no such folder"},
		{"a tree without -track", []string{"lint", "-tree", "/nonexistent"}, 2, "-tree names one track's file: say which with -track"},
		{"solve of a file as tree", []string{"solve", "-track", "generique", "-tree", "README.md"}, 2, "-tree README.md: not a folder"},
		{"check of a missing catalogue folder", []string{"catalogue", "-check", "-o", "/nonexistent"}, 2, "-o /nonexistent: no such folder"},
		{"hash of the other track's path", []string{"hash", "-manifest", "manifest/generique.json", "/agrements/AGR-4417"}, 2,
			"/agrements/AGR-4417 is in the collection agrements of the track conformite, and manifest/generique.json is the manifest of the track generique"},
		{"hash on the other -track", []string{"hash", "-track", "generique", "/agrements/AGR-4417"}, 2, "not of -track generique"},
		{"probe of a dead server", []string{"probe", "-url", dead}, 1, dead + " does not answer"},
		{"probe of a URL without a scheme", []string{"probe", "-url", deadAddress(t)}, 2, "has no scheme: write http://127.0.0.1:"},
		{"probe with HTTP/2 by its old name", []string{"probe", "-url", dead, "-protocols", "HTTP/2"}, 2, `protocol "HTTP/2": want h1, h2, h2c, h3`},
		{"probe of h2c over https", []string{"probe", "-url", "https://127.0.0.1:1", "-protocols", "h1 h2c"}, 2, "protocol h2c is served over http only"},
		{"probe of h2 in clear", []string{"probe", "-url", dead, "-protocols", "h2"}, 2, "protocol h2 is served over https only"},
		{"probe -cacert over http", []string{"probe", "-url", dead, "-cacert", "README.md"}, 2, "-cacert is for an https URL"},
		{"probe -cacert of no certificate", []string{"probe", "-url", "https://127.0.0.1:1", "-cacert", "README.md"}, 2, "README.md: no PEM certificate"},
		{"probe of one track with the other's manifest", []string{"probe", "-url", dead, "-track", "generique", "-manifest", "manifest/conformite.json"}, 2,
			`manifest/conformite.json /piste: the manifest is of the track "conformite", -track names "generique"`},
		{"nginx with a missing tree", []string{"nginx", "-track", "conformite", "-upstream", "127.0.0.1:8081", "-tree", "/nonexistent"}, 2, "-tree /nonexistent: no such folder"},
		{"seal -verify without -track", []string{"seal", "-verify", "-salt", "sel.hex"}, 2, "say which track with -track"},
		{"seal -salt without -verify", []string{"seal", "-track", "conformite", "-salt", "abc"}, 2, "-salt is not a flag of sealing"},
		{"score without -track", []string{"score", "sub.json"}, 2, "say which track with -track"},
		{"score without the salt", []string{"score", "-track", "conformite", "sub.json"}, 2, "-salt is required"},
		{"score with a flag after a file", []string{"score", "-track", "conformite", "-dry-run", "sub.json", "-format", "text"}, 2,
			`-format after the argument "sub.json": flags come before the arguments; see proveit score -h`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assertOneLine(t, tt.args, tt.code, tt.want)
		})
	}
}

// TestProbeStopsEarly runs the probe against a live server with a secret it
// does not hold, and over TLS on Caddy's internal CA with and without
// -cacert: the first two are one line each, the last the whole catalogue.
func TestProbeStopsEarly(t *testing.T) {
	inRepoRoot(t)
	held := strings.Repeat("a", 64)
	t.Setenv("CORPUS_CHALLENGE_SECRET_NEXT", "")

	s := servertest.Start(t, servertest.Options{Secrets: []string{held}})
	t.Setenv("CORPUS_CHALLENGE_SECRET", strings.Repeat("b", 64))
	assertOneLine(t, []string{"probe", "-url", s.URL}, 1, s.URL+" refuses the secret from $CORPUS_CHALLENGE_SECRET (403)")
	wrong := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(wrong, []byte(strings.Repeat("c", 64)+"\n"), 0o600))
	assertOneLine(t, []string{"probe", "-url", s.URL, "-secret-files", wrong}, 1, "refuses the secret from "+wrong)

	t.Setenv("CORPUS_CHALLENGE_SECRET", held)
	// -quiet, as the timer runs it: the summary alone when every check passes.
	code, out, errOut := runCLI("probe", "-url", s.URL, "-quiet")
	require.Equal(t, 0, code, out+errOut)
	assert.Regexp(t, `^probe: \d+ passed, 0 failed\n$`, out)

	tls := servertest.Start(t, servertest.Options{Secrets: []string{held}, TLS: true, Protocols: "h1 h2 h3"}) // -protocols below checks all three
	assertOneLine(t, []string{"probe", "-url", tls.URL}, 1, "certificate signed by unknown authority (a private CA: give its root certificate with -cacert)")

	rootCA := filepath.Join(tls.Dir, "data", "caddy", "pki", "authorities", "local", "root.crt")
	code, out, errOut = runCLI("probe", "-url", tls.URL, "-cacert", rootCA, "-protocols", "h1 h2 h3", "-track", "generique")
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "PASS HTTP/3: resource")
	assert.Contains(t, out, "PASS HTTP/2: resource")
	assert.Contains(t, out, "PASS document: /regles-achat")
	assert.NotContains(t, out, "PASS document: /referentiel", "-track generique probes that track's manifest alone")
	assert.Regexp(t, `probe: \d+ passed, 0 failed`, out)
}

// deadAddress is a loopback address nothing listens on.
func deadAddress(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", servertest.FreePort(t))
}

// TestBinary runs the built binary for a row of each exit status: the
// status is the process's, the help on standard output, errors on standard
// error.
func TestBinary(t *testing.T) {
	bin := servertest.Toolbox(t) // bin/proveit as make build builds it
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	dead := "http://" + deadAddress(t)
	for _, tt := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"verify", "-h"}, 0, "Exit status: 0 done", ""},
		{[]string{"--version"}, 0, "proveit ", ""},
		{[]string{"catalogue", "-check", "-track", "generique"}, 0, "OK docs/catalogue/generique.json is up to date", ""},
		{[]string{"probe", "-url", dead}, 1, "", dead + " does not answer"},
		{[]string{"verify", "extra"}, 2, "", `proveit verify: unexpected argument "extra"`},
		{[]string{"lint", "-taches", "x"}, 2, "", "flag provided but not defined: -taches"},
		{[]string{"solve", "-track", "nope"}, 2, "", `unknown track "nope"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "CORPUS_CHALLENGE_SECRET="+strings.Repeat("e", 64))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code, stderr.String())
			assert.Contains(t, stdout.String(), tt.stdout)
			assert.Contains(t, stderr.String(), tt.stderr)
			if tt.code != 0 {
				assert.Empty(t, stdout.String())
				assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
			}
		})
	}
}

// readerDocs are the documents a reader follows: the README and one
// document per reader under docs/.
var readerDocs = []string{"README.md", "docs/operating.md", "docs/authoring.md", "docs/scoring.md", "docs/contributing.md"}

// TestReadmeAgreesWithFlags holds the documents to the commands: the
// README's table of the toolbox lists every command with exactly its
// flags, and every `bin/proveit` line of every reader's document uses
// flags the command has.
func TestReadmeAgreesWithFlags(t *testing.T) {
	inRepoRoot(t)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	// flagsOf lists the flags of a command, or of a command's subcommand
	// (proofs fetch, proofs verify).
	flagsOf := func(command ...string) []string {
		code, help, errOut := runCLI(append(command, "-h")...)
		require.Equal(t, 0, code, errOut)
		var flags []string
		for _, m := range regexp.MustCompile(`(?m)^  (-[\w-]+)`).FindAllStringSubmatch(help, -1) {
			flags = append(flags, m[1])
		}
		return flags
	}

	row := regexp.MustCompile("(?m)^\\| `([a-z-]+(?: [a-z]+)?)` \\| ((?:`-[\\w-]+` ?)*) \\|")
	listed := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		command := strings.Fields(m[1])
		if _, ok := commands[command[0]]; !ok {
			continue // another table
		}
		listed[command[0]] = true
		flags := strings.Fields(strings.ReplaceAll(m[2], "`", ""))
		assert.ElementsMatch(t, flagsOf(command...), flags, "README.md's row of %s", m[1])
	}
	for name := range commands {
		assert.True(t, listed[name], "README.md's table of the toolbox lists %s", name)
	}

	// A command line, its continuation lines joined.
	line := regexp.MustCompile(`(?m)^bin/proveit ((?:[^\n]*\\\n)*[^\n]*)`)
	var lines [][]string
	for _, doc := range readerDocs {
		text, err := os.ReadFile(doc)
		require.NoError(t, err)
		lines = append(lines, line.FindAllStringSubmatch(string(text), -1)...)
	}
	require.NotEmpty(t, lines)
	for _, m := range lines {
		words := strings.Fields(strings.NewReplacer("\\\n", " ", "[", " ", "]", " ").Replace(m[1]))
		name := words[0]
		if strings.HasPrefix(name, "-") {
			continue // bin/proveit -h, -version
		}
		require.Contains(t, commands, name, "bin/proveit %s", m[1])
		flags := flagsOf(name)
		if name == "proofs" && len(words) > 1 {
			flags, words = flagsOf(name, words[1]), words[1:]
		}
		for _, w := range words[1:] {
			if w == "#" {
				break
			}
			if strings.HasPrefix(w, "-") {
				assert.Contains(t, flags, w, "bin/proveit %s", m[1])
			}
		}
	}
}
