package season

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Probative follows the table of the track the resource belongs to:
// "<n>" an RFC 6901 index, "<name>" any member; rules resources and fixed
// bodies have none.
func TestProbative(t *testing.T) {
	tests := []struct {
		resource, field string
		want            bool
	}{
		{"/entites/ENT-1", "/statut", true},
		{"/entites/ENT-1", "/agrements/0", true},
		{"/entites/ENT-1", "/agrements/12", true},
		{"/entites/ENT-1", "/agrements/01", false},
		{"/entites/ENT-1", "/agrements/-", false},
		{"/entites/ENT-1", "/denomination", false},
		{"/entites/ENT-1", "", false},
		{"/agrements/AGR-1", "/date_fin_validite", true},
		{"/agrements/AGR-1", "/numero_decision", false},
		{"/attestations/ATT-1", "/avenants/3", true},
		{"/avenants/AVN-1", "/nouvelle_date_fin", true},
		{"/avenants/AVN-1", "/description", false},
		{"/listes/agrees/change-manuel", "/entrees/2/statut", true},
		{"/listes/agrees/change-manuel", "/entrees/2/denomination", false},
		{"/listes/agrees/change-manuel", "/page_suivante", false},
		{"/beneficiaires/ENT-1", "/page_suivante", true},
		{"/beneficiaires/ENT-1", "/entrees/0/date_naissance", true},
		{"/beneficiaires/ENT-1", "/entrees/0/nationalite", false},
		{"/mesures-restrictives/MR-2026", "/entrees/4/prenoms", true},
		{"/mesures-restrictives/MR-2026", "/entrees/4/motif", false},
		{"/mesures-restrictives/MR-2026", "/page_suivante", false},
		{"/referentiel", "/attestations_requises", false},
		{"/_systeme/404", "/message", false},
		{"/catalogues/ecrans", "/entrees/0/prix_affiche_ttc", true},
		{"/catalogues/ecrans", "/page_suivante", false},
		{"/catalogues/ecrans", "/categorie", false},
		{"/produits/ECR-2701", "/caracteristiques/dalle", true},
		{"/produits/ECR-2701", "/caracteristiques", false},
		{"/produits/ECR-2701", "/designation", false},
		{"/fournisseurs/FRN-101", "/statut", true},
		{"/tarifs/TAR-ECR-2701", "/prix_unitaire_ttc", true},
		{"/tarifs/TAR-ECR-2701", "/mention", false},
		{"/disponibilites/DSP-ECR-2701", "/date_releve", true},
		{"/livraisons/LIV-107-ANX", "/zones_exclues/0", true},
		{"/livraisons/LIV-107", "/zones/01", false},
		{"/regles-achat", "/catalogues/ecrans", false},
	}
	for _, tt := range tests {
		t.Run(tt.resource+tt.field, func(t *testing.T) {
			assert.Equal(t, tt.want, Probative(tt.resource, tt.field))
		})
	}
}

// Each track has one rulebook, the one its statements name.
func TestRulesOfEveryTrack(t *testing.T) {
	require.Len(t, Tracks, len(corpus.Tracks))
	for i, track := range corpus.Tracks {
		r := RulesOf(track)
		assert.Same(t, Tracks[i], r)
		named, err := RulesNamed(track.Name)
		require.NoError(t, err)
		assert.Same(t, r, named)
		assert.Equal(t, track.Name, r.Name())
		for _, v := range r.Verdicts {
			assert.True(t, r.ValidVerdict(v), v)
		}
	}
	_, err := RulesNamed("tertiaire")
	assert.ErrorContains(t, err, `unknown track "tertiaire"`)
}

// A verdict is a named one or a path of the Choice collection, character
// for character.
func TestValidVerdict(t *testing.T) {
	tests := []struct {
		rules   *Rules
		verdict string
		want    bool
	}{
		{Conformity, Compliant, true},
		{Conformity, "Conforme", false},
		{Conformity, NoValidOption, false},
		{Conformity, "/produits/ECR-2701", false},
		{Purchasing, NoValidOption, true},
		{Purchasing, "/produits/ECR-2701", true},
		{Purchasing, "produits/ECR-2701", false},
		{Purchasing, "/fournisseurs/FRN-101", false},
		{Purchasing, Compliant, false},
	}
	for _, tt := range tests {
		t.Run(tt.rules.Name()+" "+tt.verdict, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.rules.ValidVerdict(tt.verdict))
		})
	}
}

// Each track's rules document publishes, under notation/champs_probants,
// the probative table the scorer applies, collection for collection and
// pointer for pointer ("<nom>" there is "<name>" here): a rule that rejects
// a submission is one a participant could read.
func TestRulesDocumentPublishesTheProbativeTable(t *testing.T) {
	for _, rules := range Tracks {
		t.Run(rules.Track.Name, func(t *testing.T) {
			data, err := fs.ReadFile(rules.Track.Embedded(), corpus.FileOf(rules.Track.Rules))
			require.NoError(t, err)
			notation, err := ReadNotation(rules.Track.Rules, data)
			require.NoError(t, err)
			assert.Equal(t, rules.PublishedProbative(), notation.Table())
			for _, text := range []string{notation.Graph, notation.OwnResources, notation.NotProbative, notation.SameFact, notation.Fictitious} {
				assert.NotEmpty(t, text)
			}
		})
	}
}
