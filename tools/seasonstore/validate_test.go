package seasonstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/index"
)

// The store refuses exactly the enrollments the Index would refuse to
// read: what it keeps always exports to a readable inscriptions.json.
func TestStoreRefusesWhatTheIndexRefuses(t *testing.T) {
	limits, err := Limits{}.resolve()
	require.NoError(t, err)
	// stricter says why the store refuses what the Index would read.
	stricter := map[string]string{
		"an agent of invalid UTF-8": "encoding/json would export U+FFFD for the byte: the Index would read another name than the one kept",
	}
	cases := []struct {
		name   string
		change func(*index.Enrollment)
	}{
		{"a community enrollment", func(*index.Enrollment) {}},
		{"a reference run", func(e *index.Enrollment) {
			e.Table = index.TableReference
			e.Model, e.Version, e.Framework, e.Prompt = ptr("m"), ptr("v"), ptr("f"), ptr("p")
		}},
		{"no history", func(e *index.Enrollment) { e.DIDHistory = []string{} }},
		{"an id in capitals", func(e *index.Enrollment) { e.ID = "Alice" }},
		{"an id of 41 characters", func(e *index.Enrollment) { e.ID = strings.Repeat("a", 41) }},
		{"an empty agent", func(e *index.Enrollment) { e.Agent = "" }},
		{"an agent with a newline", func(e *index.Enrollment) { e.Agent = "a\nb" }},
		{"an agent of invalid UTF-8", func(e *index.Enrollment) { e.Agent = "a\xffb" }},
		{"a stack with a tab", func(e *index.Enrollment) { e.Stack = "a\tb" }},
		{"a DID without did:", func(e *index.Enrollment) { e.DID = "key:z6Mk" }},
		{"a DID of 257 characters", func(e *index.Enrollment) { e.DID = "did:" + strings.Repeat("k", 253) }},
		{"a key in capitals", func(e *index.Enrollment) { e.Key = strings.ToUpper(e.Key) }},
		{"a key too short", func(e *index.Enrollment) { e.Key = e.Key[:63] }},
		{"a history entry that is no DID", func(e *index.Enrollment) { e.DIDHistory = []string{"alice"} }},
		{"an empty history entry", func(e *index.Enrollment) { e.DIDHistory = []string{""} }},
		{"a time without its zone", func(e *index.Enrollment) { e.EnrolledAt = "2026-10-02T08:00:00" }},
		{"a time in another zone", func(e *index.Enrollment) { e.EnrolledAt = "2026-10-02T08:00:00+01:00" }},
		{"a link over ftp", func(e *index.Enrollment) { e.ProofsLink = "ftp://example.org/x" }},
		{"a link without a host", func(e *index.Enrollment) { e.ProofsLink = "https:///x" }},
		{"an unknown table", func(e *index.Enrollment) { e.Table = "public" }},
		{"a community enrollment with a prompt", func(e *index.Enrollment) { e.Prompt = ptr("p") }},
		{"a reference run without its framework", func(e *index.Enrollment) {
			e.Table = index.TableReference
			e.Model, e.Version, e.Prompt = ptr("m"), ptr("v"), ptr("p")
		}},
		{"a reference run with an empty model", func(e *index.Enrollment) {
			e.Table = index.TableReference
			e.Model, e.Version, e.Framework, e.Prompt = ptr(""), ptr("v"), ptr("f"), ptr("p")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := participant(conformite)
			in.Enrollment.ID = "alice"
			c.change(&in.Enrollment)
			storeErr := checkEnrollment(&in, limits)

			dir := filepath.Join(t.TempDir(), conformite)
			require.NoError(t, os.Mkdir(dir, 0o755))
			data, err := json.Marshal(index.Enrollments{Season: season1, Track: conformite, Enrollments: []index.Enrollment{in.Enrollment}})
			require.NoError(t, err)
			file := filepath.Join(dir, "inscriptions.json")
			require.NoError(t, os.WriteFile(file, data, 0o644))
			_, indexErr := index.ReadEnrollments(file, conformite)

			switch {
			case stricter[c.name] != "":
				assert.ErrorIs(t, storeErr, ErrInvalid, stricter[c.name])
			case indexErr == nil:
				assert.NoError(t, storeErr, "the Index reads it, so the store keeps it")
			default:
				assert.ErrorIs(t, storeErr, ErrInvalid, "the Index refuses it (%v), so the store does", indexErr)
			}
		})
	}
}

// Every member of an inscriptions.json entry has its column: a member
// added to index.Enrollment without one fails here, not in an export.
func TestEveryMemberIsKept(t *testing.T) {
	var members []string
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			members = append(members, strings.Split(f.Tag.Get("json"), ",")[0])
		}
	}
	walk(reflect.TypeFor[index.Enrollment]())
	sort.Strings(members)

	var columns []string
	for _, c := range strings.Split(enrollmentColumns, ",") {
		if c = strings.TrimSpace(c); c != "season" && c != "track" {
			columns = append(columns, c)
		}
	}
	sort.Strings(columns)
	assert.Equal(t, members, columns)
}

func TestLimits(t *testing.T) {
	for _, c := range []struct {
		name   string
		limits Limits
		want   Limits
		fails  bool
	}{
		{"the defaults", Limits{}, Limits{MaxSubmissionBytes, defaultReceiptBytes, defaultEnrollmentBytes}, false},
		{"smaller", Limits{SubmissionBytes: 1000, ReceiptBytes: 500, EnrollmentBytes: 16 << 10}, Limits{1000, 500, 16 << 10}, false},
		{"a submission over 1 MiB", Limits{SubmissionBytes: MaxSubmissionBytes + 1}, Limits{}, true},
		{"a negative receipt", Limits{ReceiptBytes: -1}, Limits{}, true},
		{"an enrollment over its ceiling", Limits{EnrollmentBytes: MaxEnrollmentBytes + 1}, Limits{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.limits.resolve()
			if c.fails {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}
