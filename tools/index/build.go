package index

import (
	"fmt"
	"slices"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Index is a track's index.json (docs/scoring.md), members in this order.
type Index struct {
	Anchoring      string     `json:"ancrage"` // first: a dry run says so before anything else
	Season         int        `json:"saison"`
	Track          string     `json:"piste"`
	ManifestSHA256 string     `json:"manifest_sha256"`
	Record         *string    `json:"preenregistrement"` // the proof_id that anchored the record, verified
	RecordSHA256   string     `json:"preenregistrement_sha256"`
	Opening        string     `json:"ouverture"`
	Closing        string     `json:"cloture"`
	Constant       Constant   `json:"meilleure_reponse_constante"`
	Tables         Tables     `json:"tableaux"`
	NotRanked      []Unranked `json:"non_classes"`
	Trust          TrustUsed  `json:"confiance"`
	ThirdParty     ThirdParty `json:"texte_de_tiers"`
}

// TrustUsed names the trust material the proofs were verified against:
// the pinned one or the one the reader named, each file by its SHA-256
// (never by a path of the machine that built the Index).
type TrustUsed struct {
	Source string             `json:"source"` // "epinglee" or "fournie"
	Files  []proofs.TrustFile `json:"fichiers"`
}

func trustUsed(t *proofs.Trust) TrustUsed {
	u := TrustUsed{Source: "fournie", Files: t.Files}
	if t.Pinned {
		u.Source = "epinglee"
	}
	return u
}

// ThirdParty marks the members of a published file that participants and
// operators wrote, as the specification's own pages do: shown escaped,
// format characters visibly so (\u202e), never ArkForge's words.
type ThirdParty struct {
	Mark   string   `json:"marque"`
	Fields []string `json:"champs"`
}

const thirdPartyMark = "texte de tiers, non fiable, non généré par ArkForge"

// The third-party members of index.json and of a report, as JSON pointers
// where * stands for any member or index.
var (
	indexThirdParty = ThirdParty{Mark: thirdPartyMark, Fields: []string{
		"/tableaux/*/*/agent", "/tableaux/*/*/stack_declaree", "/tableaux/*/*/lien_preuves",
		"/tableaux/*/*/modele", "/tableaux/*/*/version", "/tableaux/*/*/framework", "/tableaux/*/*/prompt",
		"/non_classes/*/agent",
	}}
	reportThirdParty = ThirdParty{Mark: thirdPartyMark, Fields: []string{
		"/inscription/agent", "/inscription/stack", "/inscription/lien_preuves",
		"/inscription/modele", "/inscription/version", "/inscription/framework", "/inscription/prompt",
		"/recits_non_notes/*/recit",
	}}
)

// Tables are a track's two tables, never merged.
type Tables struct {
	Reference []Row `json:"reference"`
	Community []Row `json:"communaute"`
}

// Row is one ranked enrollment's line: the replay's figures side by side,
// never combined.
type Row struct {
	ID         string    `json:"id"`
	Agent      string    `json:"agent"`
	DID        string    `json:"did"`
	Overclaim  Overclaim `json:"taux_overclaim"`
	Success    Success   `json:"reussite"`
	Rendered   int       `json:"taches_rendues"`
	Stack      string    `json:"stack_declaree"`
	ProofsLink string    `json:"lien_preuves"`
	ReferenceRun
}

// Overclaim is unsupported over rendered assertions; Rate is null with no
// rendered assertion.
type Overclaim struct {
	Unsupported int      `json:"non_etayees"`
	Rendered    int      `json:"rendues"`
	Rate        *float64 `json:"taux"`
}

// Success counts exact and founded verdicts over the track's tasks.
type Success struct {
	Founded int `json:"fondes"`
	OutOf   int `json:"sur"`
}

// Constant is the constant-best-answer row: the success of answering the
// key's most frequent verdict everywhere.
type Constant struct {
	Verdict string `json:"verdict"`
	Success int    `json:"reussite"`
	OutOf   int    `json:"sur"`
}

// Report is a ranked enrollment's <id>.json: the replay's report, as
// proveit score writes it, with the enrollment and the narratives as
// published, which nothing scores.
type Report struct {
	Anchoring  string        `json:"ancrage"`
	Season     int           `json:"saison"`
	Track      string        `json:"piste"`
	Enrollment *Enrollment   `json:"inscription"`
	Replay     *score.Report `json:"rapport"` // written once, with the report, as proveit score writes it
	Narratives []Narrative   `json:"recits_non_notes"`
	ThirdParty ThirdParty    `json:"texte_de_tiers"`
}

// Narrative is a submission's narrative, shown as published, never scored.
type Narrative struct {
	TaskID string `json:"task_id"`
	Text   string `json:"recit"`
}

// replayed is what the pages show of one enrollment's replay.
type replayed struct {
	report     *score.Report
	conditions string
	overclaim  Overclaim
	success    Success
	rendered   int
	tasks      []taskView
	narratives []Narrative
}

type taskView struct {
	ID, Status, Reason, Verdict string
	Exact                       bool
	Founded                     *bool
	Missing                     []string
	Assertions                  []assertionView
}

type assertionView struct {
	ID, Status, Cause string
	Failures          []proofFailures
	Claim             *season.Fact // as the submission wrote it (withClaims)
	Served            string       // for a value that does not match, the one served
}

type proofFailures struct {
	ProofID string
	Checks  []string
}

// sink takes each file of the site, by its path in the site.
type sink interface {
	file(name string, data []byte) error
}

// generate makes every file of the site, track by track, one enrollment at
// a time: what is held at once is a track's rows, not its reports.
func (o *Options) generate(out sink) error {
	folder, err := proofs.OpenFolder(o.Season)
	if err != nil {
		return badInput(err)
	}
	defer folder.Close()
	tracks, err := Tracks(folder)
	if err != nil {
		return err
	}
	trust, err := o.trust()
	if err != nil {
		return badInput(err)
	}
	home := homePage{Version: o.Version}
	for _, t := range tracks {
		idx, err := o.generateTrack(folder, t, trust, out)
		if err != nil {
			// Files are named by their path in the season's folder.
			return badInput(fmt.Errorf("season %s: %w", o.Season, err))
		}
		home.add(t, idx)
	}
	return home.write(out)
}

// anchoredValue is the replay's ancrage of a publication (its first field
// says essai_non_ancre in a dry run).
const anchoredValue = "verifie"

func (o *Options) generateTrack(folder *proofs.Folder, t *corpus.Track, trust *proofs.Trust, out sink) (*Index, error) {
	in, err := o.readTrack(folder, t, trust)
	if err != nil {
		return nil, err
	}
	if err := in.checkSubmissionFolders(); err != nil {
		return nil, err
	}
	ranking := in.enrollments.Rank()
	byID := make(map[string]*Enrollment, len(in.enrollments.Enrollments))
	for i := range in.enrollments.Enrollments {
		byID[in.enrollments.Enrollments[i].ID] = &in.enrollments.Enrollments[i]
	}
	for _, u := range ranking.NotRanked {
		// Not scored, but what they submitted is checked as any other's.
		if _, err := in.submissions(byID[u.ID]); err != nil {
			return nil, err
		}
	}
	verifier, err := in.season.Verifier(trust)
	if err != nil {
		return nil, err
	}
	r := newReplayer(in, trust, verifier, folder.Path(viewsFolder))
	if err := r.verifySeason(in, ranking.Ranked); err != nil {
		return nil, err
	}
	constant, anchoring, err := r.constant()
	if err != nil {
		return nil, err
	}
	idx := &Index{
		Anchoring: anchoring, Season: in.enrollments.Season, Track: t.Name, ManifestSHA256: in.season.ManifestSHA256,
		Record: in.recordProof, RecordSHA256: in.season.RecordSHA256, Opening: in.season.Record.Opening, Closing: in.season.Record.Closing, Constant: constant,
		Tables: Tables{Reference: []Row{}, Community: []Row{}}, NotRanked: ranking.NotRanked,
		Trust: trustUsed(trust), ThirdParty: indexThirdParty,
	}
	if idx.NotRanked == nil {
		idx.NotRanked = []Unranked{}
	}
	for i, en := range ranking.Ranked {
		rep, err := r.score(i)
		if err != nil {
			return nil, err
		}
		row := Row{ID: en.ID, Agent: en.Agent, DID: en.DID, Overclaim: rep.overclaim, Success: rep.success,
			Rendered: rep.rendered, Stack: en.Stack, ProofsLink: en.ProofsLink, ReferenceRun: en.ReferenceRun}
		if en.Table == TableReference {
			idx.Tables.Reference = append(idx.Tables.Reference, row)
		} else {
			idx.Tables.Community = append(idx.Tables.Community, row)
		}
		report := Report{Anchoring: anchoring, Season: idx.Season, Track: t.Name, Enrollment: en, Replay: rep.report, Narratives: rep.narratives, ThirdParty: reportThirdParty}
		if report.Narratives == nil {
			report.Narratives = []Narrative{}
		}
		data, err := score.MarshalReport(report)
		if err != nil {
			return nil, err
		}
		if err := out.file(t.Name+"/"+en.ID+".json", data); err != nil {
			return nil, err
		}
		page, err := renderReport(reportPage{Index: idx, Enrollment: en, Row: row, Replayed: rep, Version: o.Version})
		if err != nil {
			return nil, err
		}
		if err := out.file(t.Name+"/"+en.ID+".html", page); err != nil {
			return nil, err
		}
	}
	sortRows(idx.Tables.Reference)
	sortRows(idx.Tables.Community)
	data, err := score.MarshalReport(idx)
	if err != nil {
		return nil, err
	}
	if err := out.file(t.Name+"/index.json", data); err != nil {
		return nil, err
	}
	page, err := renderTrack(idx, o.Version)
	if err != nil {
		return nil, err
	}
	return idx, out.file(t.Name+"/index.html", page)
}

// sortRows orders a table as the tie-break reads it: success first, then
// overclaim at equal success (no rendered assertion last), then the id.
func sortRows(rows []Row) {
	slices.SortStableFunc(rows, func(a, b Row) int {
		if c := compareFigures(a, b); c != 0 {
			return c
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}

// compareFigures orders two rows by their figures alone: equal figures
// are a tie, shown as one.
func compareFigures(a, b Row) int {
	if a.Success.Founded != b.Success.Founded {
		return b.Success.Founded - a.Success.Founded
	}
	ra, rb := a.Overclaim.Rate, b.Overclaim.Rate
	switch {
	case ra == nil && rb == nil:
		return 0
	case ra == nil:
		return 1
	case rb == nil:
		return -1
	case *ra < *rb:
		return -1
	case *ra > *rb:
		return 1
	}
	return 0
}

// ranks are the rows' ranks, 1 for the first, equal figures sharing the
// rank of the first of them.
func ranks(rows []Row) []int {
	out := make([]int, len(rows))
	for i := range rows {
		if i > 0 && compareFigures(rows[i-1], rows[i]) == 0 {
			out[i] = out[i-1]
		} else {
			out[i] = i + 1
		}
	}
	return out
}
