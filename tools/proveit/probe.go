package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// runProbe checks a live server against the contract and the manifest. The
// secrets come from the environment or from files, never from the command
// line, where any user of the machine could read them.
func runProbe(args []string, stdout io.Writer) error {
	fs := newFlagSet("probe")
	var trackName string
	registerTrack(fs, &trackName, "every track, served at one origin")
	baseURL := fs.String("url", "http://localhost:8080", "base URL of the server under test")
	manifestPaths := fs.String("manifest", "", "comma-separated manifests, one per track the server serves (default manifest/<track>.json of each track, or of -track's)")
	secretFiles := fs.String("secret-files", "", "comma-separated files each holding one secret (default: $CORPUS_CHALLENGE_SECRET and $CORPUS_CHALLENGE_SECRET_NEXT)")
	caCert := fs.String("cacert", "", "PEM file of the authorities the server's certificate must chain to, instead of the system's (a staging server on Caddy's internal CA: caddy/pki/authorities/local/root.crt of its data folder)")
	maintenance := fs.Bool("maintenance", false, "the server is in maintenance: expect the 503 body past the gate")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each request")
	quiet := fs.Bool("quiet", false, "print the failed checks, the known residuals and the summary line only (for a timer's journal)")
	protocols := fs.String("protocols", "", "protocols served besides HTTP/1.1, each checked too, as the Caddyfile's protocols option names them: "+
		"h1 (HTTP/1.1, always checked), h2 (HTTP/2 over TLS), h2c (HTTP/2 in clear), h3 (HTTP/3, https only); and http1.0 for HTTP/1.0. Comma- or space-separated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tracks, err := tracksNamed(trackName)
	if err != nil {
		return err
	}
	manifests, _, err := readManifests(*manifestPaths, tracks, trackName != "")
	if err != nil {
		return err
	}
	client, err := probe.NewClient(*baseURL, *timeout)
	if err != nil {
		return badUsage(fmt.Errorf("-url: %w", err))
	}
	if *caCert != "" {
		if client.Scheme() != "https" {
			return badUsage(fmt.Errorf("-cacert is for an https URL, and -url is %s", *baseURL))
		}
		if client.RootCAs, err = readCertPool(*caCert); err != nil {
			return badInput(err)
		}
	}
	o := probe.Options{Maintenance: *maintenance}
	if o.Protocols, err = probe.ProtocolsNamed(splitList(*protocols, ", "), client.Scheme()); err != nil {
		return badUsage(fmt.Errorf("-protocols: %w", err))
	}
	secrets, err := readSecrets(*secretFiles)
	if err != nil {
		return badInput(err)
	}
	o.Secrets = secretValues(secrets)
	checks, err := probe.CatalogueOf(manifests, o)
	if err != nil {
		return badInput(err)
	}
	first, _ := corpus.TrackNamed(manifests[0].Track) // the catalogue's sample, known to CatalogueOf
	// A dead server or a refused secret would fail every check alike: one
	// line says which, before the catalogue.
	var refused *probe.RefusedSecretError
	switch err := client.Reach(context.Background(), first.Rules, o.Secrets); {
	case errors.As(err, &refused):
		return checkFailed(fmt.Errorf("%s refuses the secret from %s (403): it is not one the server holds", *baseURL, secrets[refused.Slot].source))
	case err != nil && isUnknownAuthority(err):
		return checkFailed(fmt.Errorf("%w (a private CA: give its root certificate with -cacert)", err))
	case err != nil:
		return checkFailed(err)
	}
	// A documented residual (docs/reliability.md) is what its topology
	// answers, not a fault: it is named, and fails nothing.
	failed, known := 0, 0
	for _, r := range probe.Run(context.Background(), client, checks) {
		switch {
		case len(r.Problems) == 0:
			if !*quiet {
				fmt.Fprintf(stdout, "PASS %s\n", r.Check.Name)
			}
		case r.Residual != nil:
			known++
			fmt.Fprintf(stdout, "KNOWN %s: status %d with the body of %s, residual %s of docs/reliability.md: %s\n",
				r.Check.Name, r.Residual.Expect.Status, r.Residual.Expect.Path, r.Residual.ID, r.Residual.Why)
		default:
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %s\n", r.Check.Name, strings.Join(r.Problems, "; "))
		}
	}
	fmt.Fprintf(stdout, "probe: %d passed, %d failed", len(checks)-failed-known, failed)
	if known > 0 {
		fmt.Fprintf(stdout, ", %s (docs/reliability.md)", counted(known, "known residual"))
	}
	fmt.Fprintln(stdout)
	if failed > 0 {
		return errFailed
	}
	return nil
}

// readManifests reads the manifests of a server of several tracks, decoded
// and as bytes: the files given (comma-separated), else each track's own.
// With -track given (only), each must be of that track.
func readManifests(files string, tracks []*corpus.Track, only bool) ([]*manifest.Manifest, [][]byte, error) {
	paths := splitList(files, ",")
	if len(paths) == 0 {
		for _, t := range tracks {
			paths = append(paths, filepath.Join("manifest", manifest.FileName(t)))
		}
	}
	var manifests []*manifest.Manifest
	var encoded [][]byte
	for _, path := range paths {
		m, data, err := manifest.ReadFile(path)
		if err != nil {
			return nil, nil, badInput(err)
		}
		if only && m.Track != tracks[0].Name {
			return nil, nil, badInput(fmt.Errorf("%s /piste: the manifest is of the track %q, -track names %q", path, m.Track, tracks[0].Name))
		}
		manifests = append(manifests, m)
		encoded = append(encoded, data)
	}
	return manifests, encoded, nil
}

// readCertPool reads the PEM certificates of a file.
func readCertPool(file string) (*x509.CertPool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s: no PEM certificate", file)
	}
	return pool, nil
}

func isUnknownAuthority(err error) bool {
	var unknown x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	return errors.As(err, &unknown) || errors.As(err, &verify)
}

// secret is one secret and where it came from, which errors name instead
// of its value.
type secret struct{ value, source string }

func secretValues(secrets []secret) []string {
	values := make([]string, len(secrets))
	for i, s := range secrets {
		values[i] = s.value
	}
	return values
}

func readSecrets(files string) ([]secret, error) {
	var secrets []secret
	if files == "" {
		for _, name := range []string{"CORPUS_CHALLENGE_SECRET", "CORPUS_CHALLENGE_SECRET_NEXT"} {
			if v := os.Getenv(name); v != "" {
				secrets = append(secrets, secret{v, "$" + name})
			}
		}
	} else {
		for _, file := range strings.Split(files, ",") {
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			secrets = append(secrets, secret{strings.TrimRight(string(data), "\r\n"), file})
		}
	}
	if len(secrets) == 0 {
		return nil, fmt.Errorf("no secret: set CORPUS_CHALLENGE_SECRET or give -secret-files")
	}
	return secrets, nil
}
