package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// makeRunUser is the unprivileged account TestMakeRunAsWritten creates,
// when it runs as root, to run `make run` as a new operator would.
const makeRunUser = "proveit-maketest"

// TestMakeRunAsWritten runs the README's first command exactly as written,
// `make run` with no CORPUS_* or SEASON_* variable, as an unprivileged
// user, in a copy of the checkout that user owns: it serves the corpus on
// localhost:8080 and the season service on localhost:8090, listens on
// nothing but those ports and the admin endpoint, passes the probe, answers
// the season's state as its banner's curl line asks it, and keeps Caddy's
// state under .run; in the user's home it writes only the season's files,
// its receipt key among them, in the state folder (a secret stays out of
// every work tree).
func TestMakeRunAsWritten(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	for _, addr := range []string{"127.0.0.1:8080", "127.0.0.1:8090", "127.0.0.1:2019"} {
		if l, err := net.Listen("tcp", addr); err != nil {
			t.Skipf("make run as written listens on %s, which another process holds here: %v", addr, err)
		} else {
			l.Close()
		}
	}
	runAs := unprivileged(t)

	checkout := copyCheckout(t, runAs)
	home := filepath.Join(checkout, "..", "home")
	require.NoError(t, os.Mkdir(home, 0o700))
	chownTree(t, home, runAs)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	var cmd *exec.Cmd
	if runAs == nil {
		cmd = exec.CommandContext(ctx, "make", "run")
		cmd.Env = env
	} else {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", runAs.Username, "--", "env", "-i"}, append(env, "make", "run")...)...)
	}
	cmd.Dir = checkout
	inOwnGroup(cmd)
	out := &servertest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		stopGroup(cmd) // make and the server it runs
		<-exited
	}
	defer stop()

	const url = "http://localhost:8080"
	client := &http.Client{Timeout: time.Second}
	for serving := false; !serving; {
		select {
		case <-exited:
			t.Fatalf("make run exited: %s", out)
		case <-ctx.Done():
			t.Fatalf("make run does not serve on %s: %s", url, out)
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := client.Get(url + "/referentiel"); err == nil {
			resp.Body.Close()
			serving = true
		}
	}

	pid, err := listenerPID(8080)
	require.NoError(t, err)
	listening, err := socketsOf(pid)
	require.NoError(t, err)
	assert.Equal(t, []string{"tcp 127.0.0.1:2019", "tcp 127.0.0.1:8080", "tcp 127.0.0.1:8090"}, listening,
		"make run listens on CORPUS_LISTEN, SEASON_LISTEN and the admin endpoint, nothing else")

	// The banner's season line, run as written.
	line := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "curl -s http://localhost:8090/") {
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "Try:"))
		}
	}
	require.NotEmpty(t, line, "the banner gives the season service's curl line: %s", out)
	state, err := exec.Command("sh", "-c", line).Output()
	require.NoError(t, err, line)
	var answer struct {
		Season int            `json:"saison"`
		Tracks map[string]any `json:"pistes"`
		Key    string         `json:"cle_recus"`
	}
	require.NoError(t, json.Unmarshal(state, &answer), "%s", state)
	assert.Equal(t, 1, answer.Season)
	assert.Len(t, answer.Tracks, 2)
	assert.NotEmpty(t, answer.Key)

	secret, err := os.ReadFile(filepath.Join(checkout, ".run", "secret"))
	require.NoError(t, err)
	runProbe(t, url, probe.Options{Secrets: []string{strings.TrimSpace(string(secret))}, Protocols: []string{probe.HTTP10, probe.HTTP2}})

	stop()
	assert.FileExists(t, filepath.Join(checkout, ".run", "config", "caddy", "autosave.json"), "Caddy's autosave under .run")
	assert.DirExists(t, filepath.Join(checkout, ".run", "data", "caddy"), "Caddy's data (its local CA) under .run")
	var written []string
	require.NoError(t, filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(home, path)
			written = append(written, rel)
		}
		return err
	}))
	sort.Strings(written)
	assert.Equal(t, []string{
		".local/state/proveit/run/saison-1/conformite/apres-cloture/cle.json",
		".local/state/proveit/run/saison-1/conformite/apres-cloture/manifest.json",
		".local/state/proveit/run/saison-1/conformite/catalogue.json",
		".local/state/proveit/run/saison-1/generique/apres-cloture/cle.json",
		".local/state/proveit/run/saison-1/generique/apres-cloture/manifest.json",
		".local/state/proveit/run/saison-1/generique/catalogue.json",
		".local/state/proveit/run/saison-1/receipt.key",
	}, written, "in the user's home, make run writes the season's files only")
	info, err := os.Stat(filepath.Join(home, ".local/state/proveit/run/saison-1/receipt.key"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the receipt key is its owner's only")
	assert.NotContains(t, out.String(), `"level":"error"`, "a healthy start logs no error: %s", out)
}

// unprivileged returns the user to run as: nil when the test already runs
// as one, else makeRunUser, created if need be. It skips where it cannot
// switch user.
func unprivileged(t *testing.T) *user.User {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("running as root without runuser: cannot run make run as an unprivileged user")
	}
	u, err := user.Lookup(makeRunUser)
	if err != nil {
		out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", makeRunUser).CombinedOutput()
		if err != nil && !strings.Contains(string(out), "already exists") {
			t.Skipf("cannot create the user %s to run make run unprivileged: %v: %s", makeRunUser, err, out)
		}
		u, err = user.Lookup(makeRunUser)
		require.NoError(t, err)
	}
	return u
}

// copyCheckout copies the checkout, without .git, bin and .run, into a new
// folder of /tmp owned by u (nil: the current user), with the binaries
// under test in bin/, newer than every source, so that make run builds
// nothing.
func copyCheckout(t *testing.T, u *user.User) string {
	t.Helper()
	root := servertest.RepoRoot(t)
	base, err := os.MkdirTemp("", "proveit-make-run-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	dst := filepath.Join(base, "checkout")
	require.NoError(t, os.CopyFS(dst, pruned{os.DirFS(root)}))
	bin := filepath.Join(dst, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	copyFile(t, servertest.Binary(t), filepath.Join(bin, "caddy"))
	copyFile(t, servertest.Toolbox(t), filepath.Join(bin, "proveit"))
	later := time.Now().Add(time.Minute)
	for _, name := range []string{"caddy", "proveit"} {
		require.NoError(t, os.Chtimes(filepath.Join(bin, name), later, later))
	}
	chownTree(t, base, u)
	return dst
}

// pruned is a checkout's file system without what make run must not find
// from an earlier run or a build: .git, bin and .run.
type pruned struct{ fs.FS }

func (p pruned) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(p.FS, name)
	kept := entries[:0]
	for _, e := range entries {
		if name == "." && (e.Name() == ".git" || e.Name() == "bin" || e.Name() == ".run") {
			continue
		}
		kept = append(kept, e)
	}
	return kept, err
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

func chownTree(t *testing.T, root string, u *user.User) {
	t.Helper()
	if u == nil {
		return
	}
	uid, err := strconv.Atoi(u.Uid)
	require.NoError(t, err)
	gid, err := strconv.Atoi(u.Gid)
	require.NoError(t, err)
	require.NoError(t, filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	}))
}

// listenerPID is the process holding the TCP listener on port.
func listenerPID(port int) (int, error) {
	var inode string
	for _, table := range []string{"tcp", "tcp6"} {
		rows, err := socketTable(table)
		if err != nil {
			return 0, err
		}
		for _, r := range rows {
			if r.listening && strings.HasSuffix(r.local, ":"+strconv.Itoa(port)) {
				inode = r.inode
			}
		}
	}
	if inode == "" {
		return 0, fmt.Errorf("no listener on port %d", port)
	}
	procs, err := filepath.Glob("/proc/[0-9]*/fd")
	if err != nil {
		return 0, err
	}
	for _, fdDir := range procs {
		if holdsSocket(fdDir, inode) {
			return strconv.Atoi(filepath.Base(filepath.Dir(fdDir)))
		}
	}
	return 0, fmt.Errorf("no process holds the listener on port %d", port)
}

func holdsSocket(fdDir, inode string) bool {
	fds, _ := os.ReadDir(fdDir)
	for _, fd := range fds {
		if link, _ := os.Readlink(filepath.Join(fdDir, fd.Name())); link == "socket:["+inode+"]" {
			return true
		}
	}
	return false
}

// socketsOf lists the TCP listeners and the UDP sockets a process holds,
// sorted, as "tcp ADDR" and "udp ADDR".
func socketsOf(pid int) ([]string, error) {
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	var held []string
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		rows, err := socketTable(table)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			udp := strings.HasPrefix(table, "udp")
			if (udp || r.listening) && holdsSocket(fdDir, r.inode) {
				held = append(held, strings.TrimSuffix(table, "6")+" "+r.local)
			}
		}
	}
	sort.Strings(held)
	return held, nil
}

type socketRow struct {
	local, inode string
	listening    bool
}

// socketTable reads /proc/net/<table>, local addresses decoded.
func socketTable(table string) ([]socketRow, error) {
	f, err := os.Open("/proc/net/" + table)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []socketRow
	scanner := bufio.NewScanner(f)
	scanner.Scan() // the header
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 10 {
			continue
		}
		rows = append(rows, socketRow{local: decodeAddr(fields[1]), inode: fields[9], listening: fields[3] == "0A"})
	}
	return rows, scanner.Err()
}

// decodeAddr turns /proc/net's "0100007F:1F90" into "127.0.0.1:8080"
// (an IPv6 address stays in hex).
func decodeAddr(hexAddr string) string {
	host, port, _ := strings.Cut(hexAddr, ":")
	p, _ := strconv.ParseUint(port, 16, 16)
	if len(host) == 8 {
		v, _ := strconv.ParseUint(host, 16, 32)
		host = fmt.Sprintf("%d.%d.%d.%d", byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return host + ":" + strconv.FormatUint(p, 10)
}

// TestValidateWritesNoTelemetry runs `caddy validate --config Caddyfile`
// on the shipped Caddyfile with its default telemetry output
// (/var/log/proveit/telemetry.log), as an unprivileged user who can read a
// secrets folder: the configuration is valid, and no telemetry file or
// folder is created.
func TestValidateWritesNoTelemetry(t *testing.T) {
	const logs = "/var/log/proveit"
	if _, err := os.Stat(logs); err == nil {
		t.Skipf("%s exists on this machine: whether validating creates it cannot be seen", logs)
	}
	runAs := unprivileged(t)
	base, err := os.MkdirTemp("", "proveit-validate-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	secrets := filepath.Join(base, "secrets")
	require.NoError(t, os.Mkdir(secrets, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(secrets, "secret"), []byte("validate-"+strings.Repeat("5a", 16)+"\n"), 0o600))
	home := filepath.Join(base, "home")
	require.NoError(t, os.Mkdir(home, 0o700))
	bin, caddyfile := filepath.Join(base, "caddy"), filepath.Join(base, "Caddyfile")
	copyFile(t, servertest.Binary(t), bin)
	copyFile(t, filepath.Join(servertest.RepoRoot(t), "Caddyfile"), caddyfile)
	chownTree(t, base, runAs)

	args := []string{"env", "-i", "PATH=" + os.Getenv("PATH"), "HOME=" + home, "CORPUS_SECRETS_DIR=" + secrets,
		bin, "validate", "--config", caddyfile}
	cmd := exec.Command(args[0], args[1:]...)
	if runAs != nil {
		cmd = exec.Command("runuser", append([]string{"-u", runAs.Username, "--"}, args...)...)
	}
	cmd.Dir = base
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "Valid configuration")
	_, err = os.Stat(logs)
	assert.True(t, os.IsNotExist(err), "validating created %s", logs)
}

// TestMakeRunRefusesBeforeItsBanner: a configuration that cannot start
// prints no banner and no curl line, only one line saying why, naming what
// to change and never the secret's value; make run exits with an error.
func TestMakeRunRefusesBeforeItsBanner(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	served, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer served.Close()
	checkout := copyCheckout(t, nil)
	free := func() string { return "127.0.0.1:" + strconv.Itoa(servertest.FreePort(t)) }
	tests := []struct {
		name    string
		env     []string
		message string
	}{
		{"a short secret", []string{"CORPUS_LISTEN=" + free(), "CORPUS_CHALLENGE_SECRET=too-short"},
			"secret slot 0 (CORPUS_CHALLENGE_SECRET): shorter than 32 bytes"},
		{"an address another process serves", []string{"CORPUS_LISTEN=" + served.Addr().String()},
			served.Addr().String() + " is already served by another process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "run")
			cmd.Dir = checkout
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CORPUS_ADMIN=" + free(), "SEASON_LISTEN=" + free()}, tt.env...)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "%s", out)
			var lines []string // make's own lines aside (its error, a clock warning)
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if !strings.HasPrefix(line, "make: ") {
					lines = append(lines, line)
				}
			}
			require.Len(t, lines, 1, "one line saying why: %s", out)
			assert.Contains(t, lines[0], "make run: the server cannot start: ")
			assert.Contains(t, lines[0], tt.message)
			assert.NotContains(t, string(out), "Serving")
			assert.NotContains(t, string(out), "curl")
			assert.NotContains(t, string(out), "too-short", "no line quotes the secret")
		})
	}
}
