package nginxconf

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/arkforge/proveit-corpus/tools/privatefile"
)

// gateInclude returns the include that defines $proveit_gate: 1 when the
// X-Challenge-Secret header carries one of secrets, 0 otherwise. The
// comparison is PCRE's, case-sensitive, on the value trimmed of spaces and
// tabs as Go trims it. It is not constant-time; docs/reliability.md says
// what that leaves. No secret is an error, never an open gate.
func gateInclude(secrets []string) ([]byte, error) {
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

// WriteGate writes gateInclude(secrets) to path, readable by its owner
// only, and atomically, so that a reload never reads half a file. It
// refuses a path inside a git work tree: the secrets are never committed
// anywhere.
func WriteGate(path string, secrets []string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("gate file %q: want an absolute path", path)
	}
	if err := privatefile.CheckOutsideWorkTrees(path); err != nil {
		return fmt.Errorf("gate file %w", err)
	}
	data, err := gateInclude(secrets)
	if err != nil {
		return err
	}
	return privatefile.Replace(path, data)
}
