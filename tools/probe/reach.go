package probe

import (
	"context"
	"fmt"
	"net/http"

	"github.com/arkforge/proveit-corpus/corpus"
)

// unreachableError is a server that gave no HTTP answer to a first request:
// every check would fail the same way.
type unreachableError struct {
	URL string
	Err error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("%s does not answer: %v", e.URL, e.Err)
}

func (e *unreachableError) Unwrap() error { return e.Err }

// RefusedSecretError is a secret the gate refuses: every check past the
// gate would get the 403 body.
type RefusedSecretError struct {
	Slot int // index in Options.Secrets
}

func (e *RefusedSecretError) Error() string {
	return fmt.Sprintf("the server refuses secret %d (403): the gate holds no such secret", e.Slot)
}

// Reach sends, before any check, one GET of the rules resource of each
// secret's request, and reports what would make every check fail alike: a
// server that does not answer HTTP (refused, timed out, a TLS handshake
// failed) or a secret the gate refuses. Any other answer is left to the
// checks.
func (c *Client) Reach(ctx context.Context, rules string, secrets []string) error {
	for i, secret := range secrets {
		resp, err := c.Do(ctx, Request{Method: http.MethodGet, Target: rules, Header: [][2]string{{corpus.SecretHeader, secret}}})
		if err != nil {
			return &unreachableError{URL: c.base.String(), Err: err}
		}
		if resp.Status == http.StatusForbidden {
			return &RefusedSecretError{Slot: i}
		}
	}
	return nil
}
