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
	legalForms = []string{
		"Société par actions simplifiée (SAS)",
		"Société à responsabilité limitée (SARL)",
		"Société anonyme (SA)",
		"Entreprise unipersonnelle à responsabilité limitée (EURL)",
		"Société par actions simplifiée unipersonnelle (SASU)",
	}
	streets = []string{
		"rue Nationale", "rue de la République", "place du Marché", "avenue Foch", "quai des Chartrons",
		"boulevard Gambetta", "rue Sainte-Catherine", "cours Mirabeau", "rue du Général-Leclerc",
		"allée des Tilleuls", "rue de l'Église", "avenue Jean-Jaurès", "place Bellecour", "rue Émile-Zola",
	}
	towns = []string{
		"37000 Tours", "69002 Lyon", "13001 Marseille", "33000 Bordeaux", "31000 Toulouse",
		"74000 Annecy", "59000 Lille", "44000 Nantes", "67000 Strasbourg", "06000 Nice",
		"21000 Dijon", "35000 Rennes", "64000 Pau", "25000 Besançon", "80000 Amiens", "87000 Limoges",
	}
	insurers = []string{
		"Mutuelle Rhodanienne des Intermédiaires Financiers",
		"Caisse de garantie des professions financières",
		"Direction générale des finances publiques, service des entreprises",
		"Union de recouvrement des cotisations de sécurité sociale",
		"Assurances mutuelles du Val de Loire",
		"Société de caution mutuelle des métiers du change",
	}
	holdings = []string{
		"30 % du capital et des droits de vote",
		"25 % du capital et des droits de vote",
		"50 % du capital, contrôle conjoint",
		"15 % du capital, contrôle conjoint au titre d'un pacte d'associés",
		"40 % des droits de vote par l'intermédiaire d'une société holding",
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

// authority is the invented regulator every agrément and list names.
const authority = "Autorité de surveillance des activités financières réglementées (ASAFR)"

// measuresTitle heads every page of the restrictive-measures list.
const measuresTitle = "Liste consolidée des personnes faisant l'objet de mesures restrictives (gel des avoirs, interdictions d'exercer ou de gérer), tenue par l'ASAFR"
