package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// runProbe checks a live server against the contract and the manifest. The
// secrets come from the environment or from files, never from the command
// line, where any user of the machine could read them.
func runProbe(args []string, stdout io.Writer) error {
	fs := newFlagSet("probe")
	baseURL := fs.String("url", "http://localhost:8080", "base URL of the server under test")
	manifestPaths := fs.String("manifest", "manifest/conformite.json,manifest/generique.json", "comma-separated manifests, one per track the server serves")
	secretFiles := fs.String("secret-files", "", "comma-separated files each holding one secret (default: $CORPUS_CHALLENGE_SECRET and $CORPUS_CHALLENGE_SECRET_NEXT)")
	maintenance := fs.Bool("maintenance", false, "the server is in maintenance: expect the 503 body past the gate")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each request")
	protocols := fs.String("protocols", "", "comma-separated protocols served besides HTTP/1.1, each checked too: "+
		strings.Join([]string{probe.HTTP10, probe.HTTP2, probe.HTTP3}, ", ")+" (HTTP/3 on https only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	secrets, err := readSecrets(*secretFiles)
	if err != nil {
		return err
	}
	var manifests []*manifest.Manifest
	for _, path := range strings.Split(*manifestPaths, ",") {
		m, _, err := manifest.ReadFile(path)
		if err != nil {
			return err
		}
		manifests = append(manifests, m)
	}
	client, err := probe.NewClient(*baseURL, *timeout)
	if err != nil {
		return err
	}
	o := probe.Options{Secrets: secrets, Maintenance: *maintenance}
	if *protocols != "" {
		o.Protocols = strings.Split(*protocols, ",")
	}
	checks, err := probe.CatalogueOf(manifests, o)
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range probe.Run(context.Background(), client, checks) {
		if len(r.Problems) == 0 {
			fmt.Fprintf(stdout, "PASS %s\n", r.Check.Name)
			continue
		}
		failed++
		fmt.Fprintf(stdout, "FAIL %s: %s\n", r.Check.Name, strings.Join(r.Problems, "; "))
	}
	fmt.Fprintf(stdout, "probe: %d passed, %d failed\n", len(checks)-failed, failed)
	if failed > 0 {
		return errFailed
	}
	return nil
}

func readSecrets(files string) ([]string, error) {
	var secrets []string
	if files == "" {
		for _, name := range []string{"CORPUS_CHALLENGE_SECRET", "CORPUS_CHALLENGE_SECRET_NEXT"} {
			if v := os.Getenv(name); v != "" {
				secrets = append(secrets, v)
			}
		}
	} else {
		for _, file := range strings.Split(files, ",") {
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			secrets = append(secrets, strings.TrimRight(string(data), "\r\n"))
		}
	}
	if len(secrets) == 0 {
		return nil, fmt.Errorf("no secret: set CORPUS_CHALLENGE_SECRET or give -secret-files")
	}
	return secrets, nil
}
