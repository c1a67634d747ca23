package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The operator's steps of a season are docs/operating.md's, "The season's
// timeline": shell blocks each marked <!-- timeline: NAME -->, which the
// demo reads from the page and runs as written, with its own values for
// the page's variables, so that the page and the demo cannot drift apart.

// timelinePage is the page, from the repository's root.
var timelinePage = filepath.Join("docs", "operating.md")

// timelineBlock finds a marked block: the marker, then a ```sh fence.
var timelineBlock = regexp.MustCompile("(?m)^<!-- timeline: ([a-z-]+) -->\n```sh\n((?:.*\n)*?)```\n")

// timeline is the page's blocks, by name.
type timeline map[string]string

// readTimeline reads the page's marked blocks; a name marked twice is an
// error.
func readTimeline(repo string) (timeline, error) {
	page, err := os.ReadFile(filepath.Join(repo, timelinePage))
	if err != nil {
		return nil, err
	}
	t := timeline{}
	for _, m := range timelineBlock.FindAllSubmatch(page, -1) {
		name := string(m[1])
		if _, twice := t[name]; twice {
			return nil, fmt.Errorf("%s: the timeline's block %q is marked twice", timelinePage, name)
		}
		t[name] = string(m[2])
	}
	return t, nil
}

// names are the blocks' names, sorted.
func (t timeline) names() []string { return slices.Sorted(maps.Keys(t)) }

// operator runs the timeline's blocks as an operator types them: bash, from
// a folder laid out as the repository's root (bin/proveit the toolbox
// under test, corpus/, manifest/ and docs/ the repository's), with the
// page's variables set.
type operator struct {
	timeline timeline
	root     string
	vars     map[string]string
	// ran are the blocks run, in order, for the demo's tests.
	ran []string
}

// newOperator lays out root as the repository's root for the blocks.
func newOperator(repo, proveit, root string, vars map[string]string) (*operator, error) {
	t, err := readTimeline(repo)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		return nil, err
	}
	links := map[string]string{filepath.Join("bin", "proveit"): proveit}
	for _, dir := range []string{"corpus", "manifest", "docs"} {
		links[dir] = filepath.Join(repo, dir)
	}
	for name, target := range links {
		link := filepath.Join(root, name)
		if err := os.Remove(link); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		if err := os.Symlink(target, link); err != nil {
			return nil, err
		}
	}
	return &operator{timeline: t, root: root, vars: vars}, nil
}

// run runs the block name with the page's variables and these, and
// returns what it printed; a failure carries its output.
func (o *operator) run(ctx context.Context, name string, vars map[string]string) (string, error) {
	block, ok := o.timeline[name]
	if !ok {
		return "", fmt.Errorf("%s has no timeline block %q", timelinePage, name)
	}
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", block)
	cmd.Dir = o.root
	cmd.Env = os.Environ()
	for k, v := range o.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s, the timeline's %q block: %w\n%s", timelinePage, name, err, strings.TrimSpace(out.String()))
	}
	o.ran = append(o.ran, name)
	return out.String(), nil
}
