package seasonstore

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killChildEnv, set, makes TestSQLiteSurvivesKill the child: it submits to
// the store at that path until killed.
const killChildEnv = "SEASONSTORE_KILL_CHILD"

// killedEnrollment is the enrollment the child submits for.
const killedEnrollment = "ref-killed"

// A process acknowledges submissions and is SIGKILLed mid-stream: every
// submission it acknowledged is in the reopened store, byte for byte, with
// its receipt, and nothing is half written.
func TestSQLiteSurvivesKill(t *testing.T) {
	if path := os.Getenv(killChildEnv); path != "" {
		submitUntilKilled(t, path)
		return
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "season.db")
	setup, err := OpenSQLite(ctx, path, Options{})
	require.NoError(t, err)
	_, err = setup.Enroll(ctx, referenceRun(conformite, killedEnrollment))
	require.NoError(t, err)
	require.NoError(t, setup.Close())

	child := exec.Command(os.Args[0], "-test.run=^TestSQLiteSurvivesKill$", "-test.count=1", "-test.v=false")
	child.Env = append(os.Environ(), killChildEnv+"="+path)
	child.Stderr = os.Stderr
	stdout, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill() })

	// Kill it some acknowledgements in, while it is writing the next.
	acked := map[string]bool{}
	lines := bufio.NewScanner(stdout)
	for len(acked) < 25 && lines.Scan() {
		if task, ok := strings.CutPrefix(lines.Text(), "acked "); ok {
			acked[task] = true
		}
	}
	require.NoError(t, child.Process.Kill())
	// What it printed before dying was acknowledged too.
	for lines.Scan() {
		if task, ok := strings.CutPrefix(lines.Text(), "acked "); ok {
			acked[task] = true
		}
	}
	_ = child.Wait()
	require.GreaterOrEqual(t, len(acked), 25, "the child acknowledged fewer submissions than awaited before dying")

	reopened, err := OpenSQLite(ctx, path, Options{})
	require.NoError(t, err)
	defer reopened.Close()
	out, counted, _ := exported(t, reopened, conformite)
	for task := range acked {
		c, ok := counted[killedEnrollment+"/"+task]
		if assert.True(t, ok, "%s acknowledged, then lost", task) {
			assert.Equal(t, killedBody(task), c.Body, task)
		}
	}
	for key, c := range counted {
		task := strings.TrimPrefix(key, killedEnrollment+"/")
		assert.Equal(t, killedBody(task), c.Body, "%s: recorded whole or not at all", key)
	}
	assert.Len(t, out.Receipts, len(counted), "a receipt for each submission kept")
	t.Logf("%d acknowledged before the kill, %d kept", len(acked), len(counted))
}

// killedBody is a task's submission in the kill test: a few KiB, as a
// real one, distinct per task.
func killedBody(task string) []byte {
	return fmt.Appendf(nil, "{\"task_id\": %q, \"narrative\": %q}\n", task, strings.Repeat(task, 300))
}

// submitUntilKilled is the child: each submission acknowledged is printed
// once Submit returned. It stops by itself after a bound, should the
// parent die first.
func submitUntilKilled(t *testing.T, path string) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, path, Options{})
	require.NoError(t, err)
	var r receipts
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < 100000 && time.Now().Before(deadline); i++ {
		task := fmt.Sprintf("task-%05d", i)
		_, err := s.Submit(ctx, NewSubmission{EnrollmentID: killedEnrollment, TaskID: task, Body: killedBody(task), ReceivedAt: time.Now()}, r.build)
		require.NoError(t, err)
		fmt.Printf("acked %s\n", task)
	}
}
