package index

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// The two tables of a track (docs/scoring.md, "Publishing the Index").
const (
	TableReference = "reference"
	TableCommunity = "communaute"
)

// SameKey is the reason an enrollment is not ranked: another enrollment of
// the same participant, bound to the same key, came first.
const SameKey = "meme_cle"

// Enrollments is a track's enrollment export, inscriptions.json.
type Enrollments struct {
	Season      int          `json:"saison"`
	Track       string       `json:"piste"`
	Enrollments []Enrollment `json:"inscriptions"`
}

// Enrollment is one enrollment, as the season service exports it.
type Enrollment struct {
	ID         string   `json:"id"`
	Agent      string   `json:"agent"`
	DID        string   `json:"did"`
	Key        string   `json:"cle"`
	DIDHistory []string `json:"historique_did"`
	EnrolledAt string   `json:"inscrit_le"`
	Table      string   `json:"tableau"`
	Stack      string   `json:"stack"`
	ProofsLink string   `json:"lien_preuves"`
	ReferenceRun
}

// ReferenceRun is what a reference run publishes of itself so that anyone
// can run it again, all four members; a community enrollment, and its row,
// have none.
type ReferenceRun struct {
	Model     *string `json:"modele,omitempty"`
	Version   *string `json:"version,omitempty"`
	Framework *string `json:"framework,omitempty"`
	Prompt    *string `json:"prompt,omitempty"`
}

// inscriptionsLimit bounds the export read: it is hostile input like any
// published file.
var inscriptionsLimit = proofs.Limit{What: "an enrollment export", Bytes: 16 << 20}

var (
	enrollmentID = regexp.MustCompile(`^[a-z0-9-]{1,40}$`)
	commonFields = []string{"id", "agent", "did", "cle", "historique_did", "inscrit_le", "tableau", "stack", "lien_preuves"}
	runFields    = []string{"modele", "version", "framework", "prompt"}
	// enrollmentsMembers is the export's root, exactly.
	enrollmentsMembers = season.FieldsOf[Enrollments]()
)

// ReadEnrollments reads a track's inscriptions.json as strictly as a
// submission: exact names, no duplicate or unknown key, every member of its
// table and no other, each value of its form. Every error names the file,
// the JSON pointer and the rule.
func ReadEnrollments(file, track string) (*Enrollments, error) {
	data, err := proofs.ReadFolderFile(filepath.Dir(file), filepath.Base(file), inscriptionsLimit)
	if err != nil {
		return nil, err
	}
	return DecodeEnrollments(file, data, track)
}

// readEnrollments is ReadEnrollments from the season's folder.
func readEnrollments(folder *proofs.Folder, name, track string) (*Enrollments, error) {
	data, err := folder.Read(name, inscriptionsLimit)
	if err != nil {
		return nil, err
	}
	return DecodeEnrollments(name, data, track)
}

// DecodeEnrollments is ReadEnrollments of the bytes data, named file in
// errors.
func DecodeEnrollments(file string, data []byte, track string) (*Enrollments, error) {
	var e Enrollments
	if err := season.DecodeStrict(file, data, &e); err != nil {
		return nil, err
	}
	doc, err := pyjson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := enrollmentsMembers.Check(doc, ""); err != nil {
		return nil, fmt.Errorf("%s %w", file, err)
	}
	list, _ := doc.(pyjson.Object).Get("inscriptions")
	items, _ := list.(pyjson.Array)
	for i, item := range items {
		table, _ := item.(pyjson.Object).Get("tableau")
		allowed := commonFields
		if table == TableReference {
			allowed = append(append([]string{}, commonFields...), runFields...)
		}
		rule := season.Members{Allowed: allowed, Required: allowed}
		if err := rule.Check(item, fmt.Sprintf("/inscriptions/%d", i)); err != nil {
			return nil, fmt.Errorf("%s %w", file, err)
		}
	}
	fail := func(at, format string, args ...any) error {
		return fmt.Errorf("%s %s: %s", file, at, fmt.Sprintf(format, args...))
	}
	switch {
	case e.Track != track:
		return nil, fail("/piste", "%q, but the file is in the folder of the track %q", e.Track, track)
	case e.Season < 1:
		return nil, fail("/saison", "want the season's number, such as 1")
	}
	ids := map[string]int{}
	for i, en := range e.Enrollments {
		at := fmt.Sprintf("/inscriptions/%d", i)
		if err := en.check(); err != nil {
			return nil, fail(at+err.pointer, "%s", err.rule)
		}
		if first, dup := ids[en.ID]; dup {
			return nil, fail(at+"/id", "%q names /inscriptions/%d already: one id an enrollment", en.ID, first)
		}
		ids[en.ID] = i
	}
	return &e, nil
}

// fieldError is a member's pointer, relative to its enrollment, and the
// rule its value breaks.
type fieldError struct{ pointer, rule string }

func (en *Enrollment) check() *fieldError {
	text := func(name, value string) *fieldError {
		if value == "" || !isText(value) {
			return &fieldError{"/" + name, "want non-empty printable text (valid UTF-8, no control character)"}
		}
		return nil
	}
	if !IsEnrollmentID(en.ID) {
		return &fieldError{"/id", "want 1 to 40 of a-z, 0-9 and -: it names the enrollment's folder and pages"}
	}
	if slices.Contains(ReservedIDs, en.ID) {
		return &fieldError{"/id", fmt.Sprintf("%q names a file the Index or the season folder writes for the track itself (reserved: %s)", en.ID, strings.Join(ReservedIDs, ", "))}
	}
	for _, f := range []struct{ name, value string }{{"agent", en.Agent}, {"did", en.DID}, {"stack", en.Stack}} {
		if err := text(f.name, f.value); err != nil {
			return err
		}
	}
	if len(en.DID) > 256 || !strings.HasPrefix(en.DID, "did:") {
		return &fieldError{"/did", "want a DID (did:...), at most 256 characters"}
	}
	if !anchor.IsSHA256(en.Key) {
		return &fieldError{"/cle", "want the key's SHA-256 as 64 lowercase hex digits"}
	}
	for j, did := range en.DIDHistory {
		if did == "" || !isText(did) || len(did) > 256 || !strings.HasPrefix(did, "did:") {
			return &fieldError{fmt.Sprintf("/historique_did/%d", j), "want a DID (did:...), at most 256 characters"}
		}
	}
	if _, err := seal.ParseUTC(en.EnrolledAt); err != nil {
		return &fieldError{"/inscrit_le", err.Error()}
	}
	if u, err := url.Parse(en.ProofsLink); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !isText(en.ProofsLink) {
		return &fieldError{"/lien_preuves", "want an absolute http or https URL"}
	}
	switch en.Table {
	case TableReference:
		for _, f := range []struct {
			name  string
			value *string
		}{{"modele", en.Model}, {"version", en.Version}, {"framework", en.Framework}, {"prompt", en.Prompt}} {
			if f.value == nil { // "modele": null
				return &fieldError{"/" + f.name, "want non-empty printable text (valid UTF-8, no control character)"}
			}
			if err := text(f.name, *f.value); err != nil {
				return err
			}
		}
	case TableCommunity:
	default:
		return &fieldError{"/tableau", fmt.Sprintf("%q: want %q (a run by ArkForge) or %q", en.Table, TableReference, TableCommunity)}
	}
	return nil
}

// isText is valid UTF-8 with no control character: text a page can show
// (escaped, its format characters left out) and a terminal can print
// (through internal/printable).
func isText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// IsEnrollmentID reports whether id is in an enrollment id's grammar
// ([a-z0-9-]{1,40}): it names the enrollment's folder of submissions and
// its pages, so it is never a path of its own. The season's store and the
// receipts' check hold ids to the same rule.
func IsEnrollmentID(id string) bool { return enrollmentID.MatchString(id) }

// ReservedIDs are the names an enrollment may not have: the Index's own
// pages in a track's folder (index.json, index.html), where a report would
// overwrite the track's page, and the names the season folder gives its
// own files beside the enrollments' (inscriptions.json, recus.json,
// soumissions/, views/), which a reader could take for one of them.
var ReservedIDs = []string{"index", "inscriptions", "recus", "soumissions", "views"}

// Ranking is who of a track's enrollments is ranked: one participant per
// key (docs/scoring.md; spec §9.1).
type Ranking struct {
	Ranked    []*Enrollment
	NotRanked []Unranked
}

// Unranked is an enrollment left out of the ranking, and why.
type Unranked struct {
	ID       string `json:"id"`
	Agent    string `json:"agent"`
	DID      string `json:"did"`
	Reason   string `json:"motif"`
	RankedAs string `json:"classee"`
}

// Rank groups the enrollments into participants: enrollments with the same
// key, or whose DIDs (the one enrolled and those of the key's history)
// meet, are one participant, ranked once by its earliest enrollment
// (inscrit_le, then the export's order). Neither an address nor an email
// enters this.
func (e *Enrollments) Rank() Ranking {
	n := len(e.Enrollments)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[rb] = ra
		}
	}
	byKey := map[string]int{}
	byDID := map[string]int{}
	for i, en := range e.Enrollments {
		if first, ok := byKey[en.Key]; ok {
			union(first, i)
		} else {
			byKey[en.Key] = i
		}
		for _, did := range append([]string{en.DID}, en.DIDHistory...) {
			if first, ok := byDID[did]; ok {
				union(first, i)
			} else {
				byDID[did] = i
			}
		}
	}
	// The earliest of each participant: RFC 3339 UTC times order as
	// strings once parsed; the export's order breaks a tie.
	earliest := map[int]int{}
	for i, en := range e.Enrollments {
		root := find(i)
		first, ok := earliest[root]
		if !ok || enrolledBefore(en, e.Enrollments[first]) {
			earliest[root] = i
		}
	}
	var r Ranking
	for i := range e.Enrollments {
		en := &e.Enrollments[i]
		first := earliest[find(i)]
		if first == i {
			r.Ranked = append(r.Ranked, en)
			continue
		}
		r.NotRanked = append(r.NotRanked, Unranked{ID: en.ID, Agent: en.Agent, DID: en.DID, Reason: SameKey, RankedAs: e.Enrollments[first].ID})
	}
	return r
}

// enrolledBefore: a strictly earlier inscrit_le (both checked RFC 3339 UTC).
func enrolledBefore(a, b Enrollment) bool {
	ta, _ := seal.ParseUTC(a.EnrolledAt)
	tb, _ := seal.ParseUTC(b.EnrolledAt)
	return ta.Before(tb)
}
