package gencorpus

// French vocabulary the generated documents draw from. Every word is plain
// UTF-8 text without control characters, quotes or backslashes, so that the
// files need no escape beyond what the real corpus has.

var (
	surnames = []string{
		"Lefèvre", "Dubois", "Moreau", "Girard", "Bonnet", "Fournier", "Lambert", "Rousseau",
		"Chevallier", "Boulanger", "Ferrand", "Ravier", "Mercier", "Garnier", "Faure", "André",
		"Gauthier", "Perrin", "Brunet", "Blanchard", "Guérin", "Muller", "Hénault", "Barbier",
		"Arnaud", "Roussel", "Noël", "Mathéo", "Bérard", "Lécuyer", "Perrault", "Thébault",
		"Jouvet", "Vallée", "Ménard", "Crépin", "Delaunay", "Aubrac", "Séverin", "Lemaître",
	}
	givenNames = []string{
		"Zoé", "Anaïs", "Hélène", "Élodie", "Nadège", "Timothée", "Luc", "Henri", "Céline",
		"Jérôme", "François", "Gaëlle", "Loïc", "Mathilde", "Benoît", "Aurélie", "Noémie",
		"Raphaël", "Inès", "Clément", "Frédéric", "Amélie", "Joël", "Léa", "Maël", "Chloé",
		"Cédric", "Thérèse", "Sébastien", "Béatrice", "Agnès", "Hervé", "Estelle", "Rémi",
	}
	companyHeads = []string{
		"Bureau de change", "Comptoir financier", "Cabinet", "Société de domiciliation",
		"Maison", "Courtage", "Transferts", "Crédit conseil", "Agence", "Office",
	}
	companyTails = []string{
		"des Cordeliers", "du Vieux-Port", "Rhône-Alpes", "de la Loire", "Pyrénées", "Côte d'Opale",
		"du Léman", "Armorique", "des Flandres", "Garonne", "Provence", "du Morvan", "Vendée",
		"Béarn", "Lorraine", "de l'Estérel", "Cévennes", "du Périgord", "Ardèche", "Sologne",
	}
	legalForms = []legalForm{
		{"Société par actions simplifiée (SAS)", false},
		{"Société à responsabilité limitée (SARL)", false},
		{"Société anonyme (SA)", false},
		{"Entreprise unipersonnelle à responsabilité limitée (EURL)", true},
		{"Société par actions simplifiée unipersonnelle (SASU)", true},
	}
	streets = []string{
		"rue des Trois-Cadrans", "impasse du Héron-Cendré", "allée des Lanternes-Bleues", "rue du Puits-aux-Chimères",
		"place des Horloges-Muettes", "quai des Brumes-Hautes", "avenue des Sept-Arpents", "rue de la Licorne-Dorée",
		"chemin des Grives-Rieuses", "boulevard des Cerfs-Volants", "rue du Moulin-sans-Vent", "cours des Ormes-Penchés",
	}
	// towns are invented communes with a postal code in 00xxx, which no real
	// commune has: no generated address is anyone's.
	towns = []string{
		"00101 Valbrune", "00102 Saint-Aurèle-les-Bains", "00103 Haute-Clairière", "00104 Corvanne-sur-Loue",
		"00105 Mirebel-en-Forez", "00106 Port-Sérenne", "00107 Belcastel-des-Ondes", "00108 Lavardière",
		"00109 Sainte-Ondine-du-Val", "00110 Frênelieu", "00111 Maubreuil-sur-Lys", "00112 Ostrevent-la-Neuve",
	}
	insurers = []string{
		"Mutuelle Rhodanienne des Intermédiaires Financiers",
		"Caisse de garantie des professions financières",
		"Direction générale des finances publiques, service des entreprises",
		"Union de recouvrement des cotisations de sécurité sociale",
		"Assurances mutuelles du Val de Loire",
		"Société de caution mutuelle des métiers du change",
	}
	// directHoldings complete "<n> % ..." for an owner above the threshold.
	directHoldings = []string{
		"du capital et des droits de vote",
		"des droits de vote par l'intermédiaire d'une société holding",
		"du capital, détenus indirectement par une société civile",
	}
	controlMeans = []string{
		"président du conseil d'administration",
		"droit de veto prévu au pacte d'associés",
		"pouvoir de nommer la majorité des dirigeants",
	}
	nationalities = []string{"française", "belge", "suisse", "luxembourgeoise", "italienne", "espagnole"}
	grounds       = []string{
		"Gel des avoirs : blanchiment en bande organisée du produit d'escroqueries.",
		"Interdiction d'exercer toute activité financière réglementée pendant dix ans.",
		"Gel des avoirs : financement d'activités illicites au moyen de transferts fractionnés.",
		"Interdiction de gérer, de diriger ou de contrôler un établissement assujetti.",
		"Gel des avoirs : participation à un réseau de change clandestin.",
		"Interdiction d'exercer prononcée pour manquements graves aux obligations de vigilance.",
	}
	extensions = []string{
		"Prorogation de six mois de la garantie, dans l'attente de la souscription d'un nouveau contrat.",
		"Prorogation de l'attestation jusqu'à l'échéance du contrat renouvelé, à la demande de l'assuré.",
		"Prolongation de la couverture décidée par l'émetteur après régularisation des cotisations.",
	}
	exclusions = []string{
		"Le garant cesse de couvrir cette activité à la suite de la suspension de l'agrément correspondant.",
		"Exclusion de l'activité du périmètre de l'attestation, à la demande de l'émetteur.",
		"L'émetteur retire sa couverture pour cette activité après un sinistre non déclaré.",
	}
)

// legalForm is a legal form an entity is drawn with: a unipersonal one has a
// single partner, the others two or more.
type legalForm struct {
	name        string
	unipersonal bool
}

// authority is the invented regulator every agrément and list names.
const authority = "Autorité de surveillance des activités financières réglementées (ASAFR)"

// measuresTitle heads every page of the restrictive-measures list.
const measuresTitle = "Liste consolidée des personnes faisant l'objet de mesures restrictives (gel des avoirs, interdictions d'exercer ou de gérer), tenue par l'ASAFR"
