package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/nginxconf"
)

// runNginx writes the nginx vhost that serves the corpus under the contract,
// as the frontal of the Caddy corpus (-upstream) or alone (-root); or, with
// -write-gate, the include holding the secrets; or, with -check, verifies the
// literals of a vhost against the manifest.
func runNginx(args []string, stdout io.Writer) error {
	fs := newFlagSet("nginx")
	var trackName string
	registerTrack(fs, &trackName, "every track, served at one origin")
	upstream := fs.String("upstream", "", "comma-separated host:port of the Caddy corpus servers: nginx is their frontal, and a call one of them fails goes on to the next")
	root := fs.String("root", "", "comma-separated corpus trees nginx serves alone, from disk, one per -manifest (instead of -upstream)")
	socket := fs.String("backend-socket", "/run/proveit-corpus.sock", "unix socket of nginx's own backend, with -root")
	tree := fs.String("tree", "", "comma-separated corpus trees the fixed bodies are read from, one per -manifest, with -upstream (default corpus/<piste> of each manifest)")
	manifestPaths := fs.String("manifest", "", "comma-separated manifests, one per track served at the origin (default manifest/<track>.json of each track, or of -track's)")
	listen := fs.String("listen", "443 ssl", "comma-separated arguments of listen: the public HTTPS port by default, its certificates from -server-include or the http {} context; a loopback test listens on, say, 127.0.0.1:8443")
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
	tracks, err := tracksNamed(trackName)
	if err != nil {
		return err
	}
	decoded, manifests, err := readManifests(*manifestPaths, tracks, trackName != "")
	if err != nil {
		return err
	}
	manifestBytes := manifests[0]

	switch {
	case *writeGate:
		secrets, err := readSecrets(*secretFiles)
		if err != nil {
			return badInput(err)
		}
		if err := nginxconf.WriteGate(*gate, secretValues(secrets)); err != nil {
			var bad *nginxconf.SecretError
			if errors.As(err, &bad) {
				return badInput(fmt.Errorf("the secret from %s (slot %d): %s", secrets[bad.Slot].source, bad.Slot, bad.Problem))
			}
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %s, mode 0600\n", *gate, counted(len(secrets), "secret"))
		return nil
	case *check != "":
		return checkVhost(*check, manifests, stdout)
	case *upstream != "" && *root != "":
		return badUsage(fmt.Errorf("-upstream (nginx in front of Caddy) and -root (nginx alone) exclude each other: give one"))
	}

	o := nginxconf.Options{
		Manifest:      manifestBytes,
		Upstreams:     splitList(*upstream, ","),
		Listen:        splitList(*listen, ","),
		Hosts:         splitList(*hosts, ", "),
		GateFile:      *gate,
		ServerInclude: *include,
		Maintenance:   *maintenance,
	}
	corpora := make([]nginxconf.Corpus, len(manifests))
	folders, folderFlag := splitList(*tree, ","), "-tree"
	if *root != "" {
		folders, folderFlag = splitList(*root, ","), "-root"
		o.BackendSocket = *socket
	} else if *tree == "" {
		for _, m := range decoded {
			folders = append(folders, filepath.Join("corpus", m.Track))
		}
	}
	if len(folders) != len(manifests) {
		return badUsage(fmt.Errorf("%s names %s for %s: give one tree per manifest, in the same order", folderFlag, counted(len(folders), "tree"), counted(len(manifests), "manifest")))
	}
	for i, folder := range folders {
		if err := requireFolder(folderFlag, folder); err != nil {
			return err
		}
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
		return badInput(err)
	}
	if *out == "" {
		_, err = stdout.Write(vhost)
		return err
	}
	return os.WriteFile(*out, vhost, 0o644)
}

// checkVhost verifies a vhost's literals against each manifest it serves:
// the fixed bodies, and the absent body around every absent entry of each.
func checkVhost(path string, manifests [][]byte, stdout io.Writer) error {
	conf, err := os.ReadFile(path)
	if err != nil {
		return badInput(err)
	}
	failed := false
	var verified []string
	for _, manifestBytes := range manifests {
		answers, err := nginxconf.Verify(conf, manifestBytes)
		for _, a := range answers {
			fmt.Fprintf(stdout, "PASS %s\n", a)
		}
		if err != nil {
			failed = true
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(stdout, "FAIL %s\n", line)
			}
			continue
		}
		verified = append(verified, fmt.Sprintf("%d answers against manifest sha256 %s", len(answers), anchor.SHA256(manifestBytes)))
	}
	if failed {
		return errFailed
	}
	fmt.Fprintf(stdout, "OK the answers of %s are the bodies of %s: %s\n", path, counted(len(manifests), "manifest"), strings.Join(verified, ", "))
	return nil
}

// counted is n and noun, plural but for one: "1 secret", "2 manifests".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
