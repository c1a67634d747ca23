package nginxconf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Gate returns the include that defines $proveit_gate: 1 when the
// X-Challenge-Secret header carries one of secrets, 0 otherwise. The
// comparison is PCRE's, case-sensitive, on the value trimmed of spaces and
// tabs as Go trims it. It is not constant-time; docs/reliability.md says
// what that leaves. No secret is an error, never an open gate.
func Gate(secrets []string) ([]byte, error) {
	if len(secrets) == 0 {
		return nil, errors.New("no challenge secret: the corpus never runs open")
	}
	var b strings.Builder
	b.WriteString("# The gate of the corpus vhost, written by `proveit nginx -write-gate`.\n")
	b.WriteString("# It holds the challenge secrets: mode 0600, never in a repository.\n")
	b.WriteString("map $http_x_challenge_secret $proveit_gate {\n    default 0;\n")
	for slot, s := range secrets {
		if err := checkSecret(slot, s); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "    %s 1;\n", quote("~"+gatePattern(s)))
	}
	b.WriteString("}\n")
	return []byte(b.String()), nil
}

// WriteGate writes Gate(secrets) to path, readable by its owner only, and
// atomically, so that a reload never reads half a file. It refuses a path
// inside a git work tree: the secrets are never committed anywhere.
func WriteGate(path string, secrets []string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("gate file %q: want an absolute path", path)
	}
	if repo, inside := insideWorkTree(filepath.Dir(path)); inside {
		return fmt.Errorf("gate file %s: inside the git work tree %s; the secrets must live outside every repository", path, repo)
	}
	data, err := Gate(secrets)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gate-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// insideWorkTree reports the work tree holding dir, if any: a folder at or
// above it with a .git entry.
func insideWorkTree(dir string) (string, bool) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a link into a repository is inside it
	}
	for dir = filepath.Clean(dir); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}
