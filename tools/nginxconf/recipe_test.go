package nginxconf

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// TestLoopbackRecipe runs docs/operating.md's loopback recipe as written,
// on free ports, for both topologies: nginx in front of the real server
// (started as the recipe's comment says, its Host 127.0.0.1) passes every
// check of the probe; nginx alone passes every check but, before nginx
// 1.23, the documented residual R1, which the probe names and passes.
//
// The recipe runs from a copy of the checkout in a folder of mode 0700, as
// a clone in a home folder is: run as root, nginx's workers drop to nobody,
// and a recipe serving files of the checkout itself would pass from a
// checkout anyone can enter and answer 503 to every call from this one.
func TestLoopbackRecipe(t *testing.T) {
	nginx := servertest.NginxBinary(t)
	root := servertest.RepoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "operating.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)\\*\\*On loopback, before deploying\\.\\*\\*.*?```sh\n(.*?)```").FindSubmatch(doc)
	require.NotNil(t, m, "docs/operating.md has the loopback recipe")
	recipe := string(m[1])

	proveit := servertest.Toolbox(t)
	nginxDir := filepath.Dir(nginx)
	checkout := privateCheckout(t, root)

	const secret = "loopback-recipe-secret-0123456789abcdef"
	server := servertest.Start(t, servertest.Options{Secrets: []string{secret}, Env: map[string]string{"CORPUS_HOSTS": "127.0.0.1"}})
	for _, tt := range []struct {
		name    string
		drop    string // the lines of the other topology
		summary string
	}{
		{"nginx in front of Caddy", `(?m)^# or nginx alone.*\n(?:.*\n)*?.*\\\n.*\n`, "probe: 487 passed, 0 failed\n"},
		{"nginx alone", `(?m)^bin/proveit nginx -upstream .*\\\n.*\n`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			script := regexp.MustCompile(tt.drop).ReplaceAllString(recipe, "")
			require.NotEqual(t, recipe, script, "the recipe has both topologies")
			// The recipe's own secret is the server's here; its ports are free ones.
			script = regexp.MustCompile(`(?m)^\(umask 077; head -c 32 .*$`).ReplaceAllLiteralString(script, "(umask 077; printf %s "+secret+" > $dir/secret)")
			script = strings.NewReplacer("127.0.0.1:8081", "127.0.0.1:"+strconv.Itoa(server.Port),
				"127.0.0.1:8443", "127.0.0.1:"+strconv.Itoa(servertest.FreePort(t)), "bin/proveit", proveit).Replace(script)
			// Whatever stops the script, nginx is stopped with it.
			cmd := exec.Command("bash", "-euo", "pipefail", "-c", "trap 'nginx -p $dir -e $dir/error.log -c $dir/nginx.conf -s stop 2>/dev/null || true; rm -rf $dir' EXIT\n"+script)
			cmd.Dir = checkout
			cmd.Env = append(os.Environ(), "PATH="+nginxDir+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.NotContains(t, string(out), secret)
			if tt.summary != "" {
				assert.True(t, strings.HasSuffix(string(out), tt.summary), "%s", out)
				return
			}
			if strings.Contains(string(out), "KNOWN") {
				assert.Contains(t, string(out), "KNOWN gate: secret twice: status 200 with the body of /referentiel, residual R1")
				assert.Contains(t, string(out), "probe: 486 passed, 0 failed, 1 known residual")
				return
			}
			assert.Contains(t, string(out), "probe: 487 passed, 0 failed\n")
		})
	}
}

// privateCheckout copies what the recipe reads of the checkout (each track's
// tree and manifest) into a folder only its owner may enter, and returns
// the copy's root.
func privateCheckout(t *testing.T, root string) string {
	t.Helper()
	private := t.TempDir()
	require.NoError(t, os.Chmod(private, 0o700))
	checkout := filepath.Join(private, "checkout")
	for _, track := range []string{"conformite", "generique"} {
		tree := filepath.Join("corpus", track)
		require.NoError(t, os.CopyFS(filepath.Join(checkout, tree), os.DirFS(filepath.Join(root, tree))))
		m := filepath.Join("manifest", track+".json")
		data, err := os.ReadFile(filepath.Join(root, m))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(checkout, "manifest"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(checkout, m), data, 0o644))
	}
	return checkout
}
