package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/receipt"
)

// placeholder is a word the page leaves to the person: <api_key>, <did>.
var placeholder = regexp.MustCompile(`<([a-z_]+)>`)

// The dress rehearsal, driven as a person drives it: started as make
// rehearsal starts it (a season of 30 minutes), its page read, each of the
// participant's commands run as printed, in a shell, with only the words
// the page leaves to the person filled in from the output of the first
// step that names them, up to a submission the season service accepts
// with a receipt signed by the season's key; the operator's commands name
// files that are there; then an interruption stops everything, the private
// files with it.
func TestRehearsal(t *testing.T) {
	var out servertest.SyncBuffer
	cfg := demoConfig(t, filepath.Join(t.TempDir(), "rehearsal"), &out)
	cfg.window, cfg.timeout = rehearsalWindow, 15*time.Minute
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	stopped := make(chan error, 1)
	go func() { stopped <- rehearse(ctx, cfg) }()

	// The page, once printed: what a person reads. A slow start is
	// started again with a longer lead (start); this bound only keeps a
	// stuck run from hanging the test.
	const pageEnd = "Everything stays up until Ctrl-C"
	deadline := time.After(10 * time.Minute)
	for !strings.Contains(out.String(), pageEnd) {
		select {
		case err := <-stopped:
			t.Fatalf("the rehearsal ended before its page: %v\n%s", err, out.String())
		case <-deadline:
			t.Fatalf("no page after 10 minutes:\n%s", out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	page := out.String()
	_, page, found := strings.Cut(page, "\nThe dress rehearsal is up")
	require.True(t, found, out.String())
	participantPart, operatorPart, found := strings.Cut(page, "\nThe operator's close")
	require.True(t, found, page)
	steps := parseSteps(participantPart)
	require.Len(t, steps, 10, participantPart)

	// The participant's steps, as a person takes them.
	filled := map[string]string{}
	var outputs []string
	for i, s := range steps {
		var stepOut strings.Builder
		for _, command := range s.commands {
			command = placeholder.ReplaceAllStringFunc(command, func(word string) string {
				value, ok := filled[placeholder.FindStringSubmatch(word)[1]]
				require.True(t, ok, "step %d uses %s, which no earlier step gives: %s", i+1, word, command)
				return value
			})
			stdout, stderr := shell(t, command)
			assert.Empty(t, stderr, "step %d: %s", i+1, command)
			stepOut.WriteString(stdout)
		}
		outputs = append(outputs, stepOut.String())
		// What the step gives: each word its text names for the first time.
		for _, m := range placeholder.FindAllStringSubmatch(s.about, -1) {
			if _, known := filled[m[1]]; !known {
				value := given(t, m[1], stepOut.String())
				require.NotEmpty(t, value, "step %d gives <%s>: %s\n%s", i+1, m[1], s.about, stepOut.String())
				filled[m[1]] = value
			}
		}
	}
	assert.Regexp(t, `^mcp_free_`, filled["api_key"])
	assert.Regexp(t, `^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$`, filled["did"])
	assert.Regexp(t, `^[A-Za-z0-9_-]{86}$`, filled["signature"])
	assert.Contains(t, outputs[4], `"verified_did":"`+filled["did"]+`"`, "the DID bound")
	var enrolled struct {
		DID string `json:"did"`
	}
	require.NoError(t, json.Unmarshal([]byte(outputs[5]), &enrolled), outputs[5])
	assert.Equal(t, filled["did"], enrolled.DID, "enrolled under the DID bound to the key")

	// The last step: 200, recorded, with a receipt signed by the season's
	// key (the one the operator's page gives), kept as the page says.
	var accepted struct {
		Recorded bool            `json:"enregistree"`
		Receipt  json.RawMessage `json:"recu"`
	}
	require.NoError(t, json.Unmarshal([]byte(outputs[9]), &accepted), outputs[9])
	require.True(t, accepted.Recorded, outputs[9])
	rec, err := receipt.Decode("recu", accepted.Receipt)
	require.NoError(t, err)
	operator := parseSteps(operatorPart)
	require.Len(t, operator, 4, operatorPart)
	words := strings.Fields(operator[3].commands[0])
	key := words[slices.Index(words, "-key")+1]
	pub, err := base64.StdEncoding.DecodeString(key)
	require.NoError(t, err)
	assert.True(t, receipt.Verify(ed25519.PublicKey(pub), rec), "signed by the season's receipt key")
	assert.Equal(t, "conf-01", rec.TaskID)
	kept, err := os.ReadFile(words[len(words)-1])
	require.NoError(t, err, "the receipt kept where the page says")
	assert.JSONEq(t, string(accepted.Receipt), string(kept))

	// The operator's commands name what is there: the binary, the
	// database, the receipt key, each record, the season and the trust
	// material; a folder a command writes into has its parent.
	for _, s := range operator {
		for _, command := range s.commands {
			checkPaths(t, command)
		}
	}

	// An interruption stops everything: the servers, the stand-in, the
	// private files.
	keyFile := strings.Fields(steps[1].commands[0])[3]
	require.FileExists(t, keyFile)
	interrupt()
	select {
	case err := <-stopped:
		require.NoError(t, err, out.String())
	case <-time.After(5 * time.Minute):
		t.Fatalf("the rehearsal did not stop:\n%s", out.String())
	}
	assert.Contains(t, out.String(), "Stopping (interrupted)")
	assert.NoDirExists(t, filepath.Dir(keyFile), "the participant's private folder goes with the rehearsal")
	for _, line := range strings.Split(page, "\n") {
		if service, ok := strings.CutPrefix(line, "  the season service   "); ok {
			url, _, _ := strings.Cut(service, " ")
			_, err := (&http.Client{Timeout: 5 * time.Second}).Get(url + "/v1/season/1")
			assert.Error(t, err, "the season service is stopped")
		}
	}
}

// parseSteps reads numbered steps as writeSteps writes them: a line "N.
// what it does", then its commands, each on a line indented by four
// spaces.
func parseSteps(text string) []step {
	var steps []step
	number := regexp.MustCompile(`^\d+\. `)
	for _, line := range strings.Split(text, "\n") {
		switch {
		case number.MatchString(line):
			steps = append(steps, step{about: line})
		case strings.HasPrefix(line, "    ") && len(steps) > 0:
			steps[len(steps)-1].commands = append(steps[len(steps)-1].commands, strings.TrimPrefix(line, "    "))
		}
	}
	return steps
}

// shell runs a command line as a person's shell does, from this folder.
func shell(t *testing.T, command string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s\n%s%s", command, stdout.String(), stderr.String())
	return stdout.String(), stderr.String()
}

// given is the value a step's output gives for a word: the member of that
// name in its JSON answer, at any depth, or else the one line it printed.
func given(t *testing.T, name, output string) string {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(output), &doc); err == nil {
		value, _ := member(doc, name).(string)
		return value
	}
	line := strings.TrimSpace(output)
	require.NotContains(t, line, "\n", "one line")
	return line
}

// member is the first member named name in a JSON value, depth first.
func member(v any, name string) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if found, ok := obj[name]; ok {
		return found
	}
	for _, child := range obj {
		if found := member(child, name); found != nil {
			return found
		}
	}
	return nil
}

// checkPaths holds a command's file arguments to the files there: what it
// reads exists, the folder of what it writes exists.
func checkPaths(t *testing.T, command string) {
	t.Helper()
	words := strings.Fields(command)
	_, err := exec.LookPath(words[0])
	assert.NoError(t, err, "the program of %s", command)
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch words[i-1] {
		case "-track", "-key", "-trust-layer", "-rekor":
			continue // a track, a base64 key, a URL
		}
		if strings.HasPrefix(w, "-") || strings.Contains(w, "://") || !strings.Contains(w, string(filepath.Separator)) {
			continue
		}
		if glob, _, isGlob := strings.Cut(w, "*"); isGlob {
			assert.DirExists(t, filepath.Dir(glob), "%s: %s", w, command)
			continue
		}
		if written := words[i-1] == "-o" || words[i-1] == "-views"; written {
			assert.DirExists(t, filepath.Dir(w), "the folder of %s: %s", w, command)
			continue
		}
		_, err := os.Stat(w)
		assert.NoError(t, err, command)
	}
}

// shellQuote leaves a plain word as it is and quotes anything else, so
// that a shell reads back the very string.
func TestShellQuote(t *testing.T) {
	for _, s := range []string{"bin/proveit", "/tmp/a b/did.pem", "it's", "", "$HOME", "a;b", "F28F+x/y=", "é"} {
		t.Run(s, func(t *testing.T) {
			quoted := shellQuote(s)
			out, err := exec.Command("bash", "-c", "printf %s "+quoted).Output()
			require.NoError(t, err)
			assert.Equal(t, s, string(out))
			if strings.Trim(s, "abcdefghijklmnopqrstuvwxyz/+=F28xy") == "" && s != "" {
				assert.Equal(t, s, quoted, "a plain word stays as it is")
			}
		})
	}
}
