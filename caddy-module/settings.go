package corpushandler

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/caddyserver/caddy/v2"
)

// maxSettingFile bounds what {file.PATH} reads, as Caddy's own placeholder does.
const maxSettingFile = 1 << 20

// settingsReplacer resolves the placeholders of the handler's settings
// (secrets, roots, manifests, pins) at provisioning. It differs from
// caddy.NewReplacer in {file.PATH} alone: a file that does not exist
// resolves to nothing without a word, so that an optional file
// (secret.next, a pin) leaves its setting unused and a healthy start logs
// no error; a file that exists but cannot be read refuses the
// configuration, where Caddy's would log an error and leave a secret slot
// or a pin silently empty.
type settingsReplacer struct {
	repl    *caddy.Replacer
	readErr error // the first file of the current resolve that could not be read
}

func newSettingsReplacer() *settingsReplacer {
	s := &settingsReplacer{repl: caddy.NewReplacer().WithoutFile()}
	s.repl.Map(s.file)
	return s
}

// resolve replaces every placeholder of value; an unknown placeholder or an
// unreadable file is an error.
func (s *settingsReplacer) resolve(value string) (string, error) {
	s.readErr = nil
	out, err := s.repl.ReplaceOrErr(value, false, true)
	if err == nil {
		err = s.readErr
	}
	return out, err
}

func (s *settingsReplacer) file(key string) (any, bool) {
	name, ok := strings.CutPrefix(key, "file.")
	if !ok {
		return nil, false
	}
	body, err := readSettingFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", true
	case err != nil:
		if s.readErr == nil {
			s.readErr = err
		}
		return "", true
	}
	return body, true
}

// readSettingFile reads a file as Caddy's {file.PATH} does: at most
// maxSettingFile bytes, without one trailing line ending.
func readSettingFile(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, maxSettingFile))
	if err != nil {
		return "", err
	}
	body = bytes.TrimSuffix(body, []byte("\n"))
	body = bytes.TrimSuffix(body, []byte("\r"))
	return string(body), nil
}
