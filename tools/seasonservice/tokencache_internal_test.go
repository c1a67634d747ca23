package seasonservice

import (
	"context"
	"crypto/sha256"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// A token the store knows is looked up once; one it does not know is
// asked every time and never kept.
func TestEnrollmentCache(t *testing.T) {
	ctx := context.Background()
	store, err := seasonstore.Open(ctx, filepath.Join(t.TempDir(), "season.db"), seasonstore.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	token := sha256.Sum256([]byte("jeton"))
	did := "did:key:z6MkCache"
	_, err = store.Enroll(ctx, seasonstore.NewEnrollment{Season: 1, Track: "conformite", TokenSHA256: token,
		Enrollment: index.Enrollment{Agent: "A", DID: did, Key: strings.Repeat("a", 64),
			DIDHistory: []string{did}, EnrolledAt: "2026-10-02T08:00:00Z", Table: index.TableCommunity, Stack: "Go", ProofsLink: "https://example.org/"}})
	require.NoError(t, err)
	counting := &CountingStore{Store: store}

	var cache enrollmentCache
	for range 3 {
		en, err := cache.byToken(ctx, counting, token)
		require.NoError(t, err)
		assert.Equal(t, did, en.Enrollment.DID)
	}
	assert.Equal(t, 1, counting.Lookups(), "the store is asked once")

	unknown := sha256.Sum256([]byte("inconnu"))
	for range 2 {
		_, err := cache.byToken(ctx, counting, unknown)
		assert.ErrorIs(t, err, seasonstore.ErrUnknownToken)
	}
	assert.Equal(t, 3, counting.Lookups(), "an unknown token is asked each time")
	assert.Len(t, cache.entries, 1, "and never kept")
}
