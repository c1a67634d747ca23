package corpushandler

import (
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Handler
		err   string
	}{
		{
			name: "every subdirective",
			input: `proveit_corpus {
				secrets {env.A} {file./etc/proveit/secret}
				corpus conformite {
					root /srv/conformite
					manifest /srv/conformite.json
					manifest_sha256 {env.PIN}
				}
				corpus generique {
					manifest_sha256 {file./etc/proveit/manifest-generique.sha256}
				}
				hosts corpus.arkforge.tech localhost
				maintenance on
			}`,
			want: Handler{
				Secrets: []string{"{env.A}", "{file./etc/proveit/secret}"},
				Corpora: []Corpus{
					{Track: "conformite", Root: "/srv/conformite", Manifest: "/srv/conformite.json", ManifestSHA256: "{env.PIN}"},
					{Track: "generique", ManifestSHA256: "{file./etc/proveit/manifest-generique.sha256}"},
				},
				Hosts:       []string{"corpus.arkforge.tech", "localhost"},
				Maintenance: true,
			},
		},
		{name: "a corpus block without settings", input: "proveit_corpus {\n corpus generique\n}", want: Handler{Corpora: []Corpus{{Track: "generique"}}}},
		{name: "secret as a synonym", input: "proveit_corpus {\n secret {env.A}\n}", want: Handler{Secrets: []string{"{env.A}"}}},
		{name: "maintenance without argument", input: "proveit_corpus {\n maintenance\n}", want: Handler{Maintenance: true}},
		{name: "maintenance off", input: "proveit_corpus {\n maintenance off\n}", want: Handler{}},
		{name: "empty block", input: "proveit_corpus", want: Handler{}},
		{name: "argument on the directive", input: "proveit_corpus /x", err: "wrong argument count"},
		{name: "unknown subdirective", input: "proveit_corpus {\n listen :80\n}", err: `unrecognized subdirective "listen"`},
		{name: "root outside a corpus block", input: "proveit_corpus {\n root /a\n}", err: `unrecognized subdirective "root"`},
		{name: "a corpus without its track", input: "proveit_corpus {\n corpus {\n root /a\n }\n}", err: "wrong argument count"},
		{name: "a corpus with two tracks", input: "proveit_corpus {\n corpus conformite generique\n}", err: "wrong argument count"},
		{name: "root twice", input: "proveit_corpus {\n corpus conformite {\n root /a\n root /b\n }\n}", err: "corpus conformite: root: already specified"},
		{name: "manifest twice", input: "proveit_corpus {\n corpus conformite {\n manifest /a\n manifest /b\n }\n}", err: "manifest: already specified"},
		{name: "pin twice", input: "proveit_corpus {\n corpus generique {\n manifest_sha256 a\n manifest_sha256 b\n }\n}", err: "manifest_sha256: already specified"},
		{name: "unknown corpus subdirective", input: "proveit_corpus {\n corpus generique {\n hosts a\n }\n}", err: `corpus generique: unrecognized subdirective "hosts"`},
		{name: "secrets then secret", input: "proveit_corpus {\n secrets {env.A}\n secret {env.B}\n}", err: "secrets: already specified"},
		{name: "hosts twice", input: "proveit_corpus {\n hosts a\n hosts b\n}", err: "hosts: already specified"},
		{name: "maintenance twice", input: "proveit_corpus {\n maintenance on\n maintenance off\n}", err: "maintenance: already specified"},
		{name: "root without a folder", input: "proveit_corpus {\n corpus conformite {\n root\n }\n}", err: "wrong argument count"},
		{name: "root with two folders", input: "proveit_corpus {\n corpus conformite {\n root /a /b\n }\n}", err: "wrong argument count"},
		{name: "secrets without a value", input: "proveit_corpus {\n secrets\n}", err: "wrong argument count"},
		{name: "maintenance neither on nor off", input: "proveit_corpus {\n maintenance soon\n}", err: `"soon" is neither on nor off`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, h)
		})
	}
}
