package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	proveitcorpus "github.com/arkforge/proveit-corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// pluginModules are the modules the plugin registers.
var pluginModules = []string{"http.handlers.proveit_corpus", "caddy.listeners.proveit_limits", "caddy.listeners.proveit_guard",
	"caddy.listeners.proveit_h2_guard", "caddy.logging.writers.proveit_file", "caddy.logging.encoders.proveit_journal"}

// xcaddyMain is the main package `xcaddy build --with
// github.com/arkforge/proveit-corpus=<checkout>` writes: Caddy's command,
// its standard modules, and the plugin's module root.
const xcaddyMain = `package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/arkforge/proveit-corpus"
)

func main() {
	caddycmd.Main()
}
`

// TestPluginBuildsAsXcaddyBuildsIt builds a Caddy of its own module that
// imports the module root through a local replace, as xcaddy does, without
// the network: the modules come from the local module cache only. The
// built Caddy has the four modules and names this module's version.
func TestPluginBuildsAsXcaddyBuildsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a whole Caddy")
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	root := servertest.RepoRoot(t)
	dir := t.TempDir()
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	// The plugin's own requirements, so that nothing is resolved beyond them.
	requires := string(goMod[strings.Index(string(goMod), "\nrequire"):])
	mod := "module example.com/caddy\n\ngo 1.26.8\n\nrequire " + proveitcorpus.ModulePath + " v0.0.0-00010101000000-000000000000\n" +
		requires + "\nreplace " + proveitcorpus.ModulePath + " => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sums, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(xcaddyMain), 0o644))

	bin := filepath.Join(dir, "caddy")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	start := time.Now()
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("built in %s", time.Since(start).Round(time.Second))

	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	modules := run("list-modules")
	for _, id := range pluginModules {
		assert.Contains(t, modules, id)
	}
	dep := "dep\t" + proveitcorpus.ModulePath + "\tv0.0.0-00010101000000-000000000000\n=>\t" + root + "\t"
	assert.True(t, strings.Contains(run("build-info"), dep), "build-info names the plugin and its replacement: %q", dep)
	assert.Regexp(t, `(?m)^http\.handlers\.proveit_corpus v0\.0\.0-00010101000000-000000000000`, run("list-modules", "--versions"))
}

// xcaddyVersion is the xcaddy TestXcaddyBuild runs, pinned.
const xcaddyVersion = "v0.4.5"

// TestXcaddyBuild runs the README's xcaddy command itself, offline: it
// needs xcaddy and every module its `go get` steps look up in the module
// cache, which one run with the module proxy fills (README, "Building your
// own Caddy"). Where they are missing it says so and skips; the build
// above stands for it.
func TestXcaddyBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a whole Caddy")
	}
	dir := t.TempDir()
	offline := append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	install := exec.Command("go", "install", "github.com/caddyserver/xcaddy/cmd/xcaddy@"+xcaddyVersion)
	// The module cache as the proxy: `go install` looks the module's
	// deprecation up, which GOPROXY=off refuses.
	install.Env = append(offline, "GOPROXY=file://"+filepath.Join(strings.TrimSpace(string(cache)), "cache", "download"), "GOBIN="+dir, "GOFLAGS=")
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("xcaddy %s is not in the module cache (go install github.com/caddyserver/xcaddy/cmd/xcaddy@%s once, with the module proxy): %s",
			xcaddyVersion, xcaddyVersion, out)
	}
	root := servertest.RepoRoot(t)
	bin := filepath.Join(dir, "caddy")
	build := exec.Command(filepath.Join(dir, "xcaddy"), "build", caddyVersion(t), "--with", proveitcorpus.ModulePath+"="+root, "--output", bin)
	build.Dir = dir
	build.Env = append(offline, "GOFLAGS=-mod=mod")
	out, err := build.CombinedOutput()
	if err != nil && (strings.Contains(string(out), "module lookup disabled") || strings.Contains(string(out), "cache/download")) {
		t.Skipf("xcaddy looks up modules the module cache lacks; one run with the module proxy fetches them: %s", lastLines(string(out), 3))
	}
	require.NoError(t, err, "%s", lastLines(string(out), 20))
	cmd := exec.Command(bin, "list-modules")
	cmd.Env = []string{"HOME=" + dir}
	modules, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", modules)
	for _, id := range pluginModules {
		assert.Contains(t, string(modules), id)
	}
}

// caddyVersion is the Caddy this module requires, which xcaddy builds.
func caddyVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/caddyserver/caddy/v2").Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestBinaryNamesItsVersion: the Caddy under test and `make build`'s name
// this module's version.
func TestBinaryNamesItsVersion(t *testing.T) {
	cmd := exec.Command(servertest.Binary(t), "version")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Regexp(t, `^proveit-corpus \S+ v2\.`, string(out))
}
