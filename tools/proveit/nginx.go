package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/nginxconf"
)

// runNginx writes the nginx vhost that serves the corpus under the contract,
// as the frontal of the Caddy corpus (-upstream) or alone (-root); or, with
// -write-gate, the include holding the secrets; or, with -check, verifies the
// literals of a vhost against the manifest.
func runNginx(args []string, stdout io.Writer) error {
	fs := newFlagSet("nginx")
	upstream := fs.String("upstream", "", "host:port of the Caddy corpus on loopback: nginx is its frontal")
	root := fs.String("root", "", "comma-separated corpus trees nginx serves alone, from disk, one per -manifest (instead of -upstream)")
	socket := fs.String("backend-socket", "/run/proveit-corpus.sock", "unix socket of nginx's own backend, with -root")
	tree := fs.String("tree", "corpus/conformite,corpus/generique", "comma-separated corpus trees the fixed bodies are read from, one per -manifest, with -upstream")
	manifestPaths := fs.String("manifest", "manifest/conformite.json,manifest/generique.json", "comma-separated manifests, one per track served at the origin")
	listen := fs.String("listen", "127.0.0.1:8080", "comma-separated arguments of listen (\"443 ssl\")")
	hosts := fs.String("hosts", "corpus.arkforge.tech", "comma-separated Host names answered")
	gate := fs.String("gate", "/etc/proveit/nginx-gate.conf", "include holding the secrets, outside every repository")
	include := fs.String("server-include", "", "file included in the server block (TLS certificates)")
	maintenance := fs.Bool("maintenance", false, "answer the 503 body to every call past the gate")
	out := fs.String("o", "", "file to write the vhost to (default: standard output)")
	writeGate := fs.Bool("write-gate", false, "write the -gate file from the secrets ($CORPUS_CHALLENGE_SECRET, $CORPUS_CHALLENGE_SECRET_NEXT, or -secret-files) instead of the vhost")
	secretFiles := fs.String("secret-files", "", "with -write-gate: comma-separated files each holding one secret")
	check := fs.String("check", "", "verify the literals of this vhost against the manifest instead of writing one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var manifests [][]byte
	for _, path := range splitList(*manifestPaths, ",") {
		_, data, err := manifest.ReadFile(path)
		if err != nil {
			return err
		}
		manifests = append(manifests, data)
	}
	if len(manifests) == 0 {
		return fmt.Errorf("no -manifest")
	}
	manifestBytes := manifests[0]

	switch {
	case *writeGate:
		secrets, err := readSecrets(*secretFiles)
		if err != nil {
			return err
		}
		if err := nginxconf.WriteGate(*gate, secrets); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %d secrets, mode 0600\n", *gate, len(secrets))
		return nil
	case *check != "":
		return checkVhost(*check, manifestBytes, stdout)
	}

	o := nginxconf.Options{
		Manifest:      manifestBytes,
		Upstream:      *upstream,
		Listen:        splitList(*listen, ","),
		Hosts:         splitList(*hosts, ", "),
		GateFile:      *gate,
		ServerInclude: *include,
		Maintenance:   *maintenance,
	}
	corpora := make([]nginxconf.Corpus, len(manifests))
	folders := splitList(*tree, ",")
	if *root != "" {
		folders = splitList(*root, ",")
		o.BackendSocket = *socket
	}
	if len(folders) != len(manifests) {
		return fmt.Errorf("%d manifests for %d trees: give one tree per manifest, in the same order", len(manifests), len(folders))
	}
	for i, folder := range folders {
		corpora[i].Manifest = manifests[i]
		if *root == "" {
			corpora[i].Tree = os.DirFS(folder)
			continue
		}
		abs, err := filepath.Abs(folder)
		if err != nil {
			return err
		}
		corpora[i].Root = abs
	}
	o.Root, o.Tree, o.Others = corpora[0].Root, corpora[0].Tree, corpora[1:]
	vhost, err := nginxconf.Generate(o)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(vhost)
		return err
	}
	return os.WriteFile(*out, vhost, 0o644)
}

func checkVhost(path string, manifestBytes []byte, stdout io.Writer) error {
	conf, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	answers, err := nginxconf.Verify(conf, manifestBytes)
	for _, a := range answers {
		fmt.Fprintf(stdout, "PASS %s\n", a)
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stdout, "FAIL %s\n", line)
		}
		return errFailed
	}
	fmt.Fprintf(stdout, "OK %d answers of %s are the manifest's bodies (manifest sha256 %s)\n", len(answers), path, manifest.SHA256(manifestBytes))
	return nil
}

// splitList splits s at any of seps, dropping the spaces around each item.
func splitList(s, seps string) []string {
	var items []string
	for _, item := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}
