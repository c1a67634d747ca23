package purchasing

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// freshness is how old an availability record may be at the order date,
// bounds included (G4, stated at /regles-achat under fraicheur_des_releves).
const freshness = 15 * 24 * time.Hour

// Availability states and the active supplier statut the rules name.
const (
	inStock        = "en_stock"
	activeSupplier = "actif"
)

// need is a purchasing statement, read once into exact values.
type need struct {
	season.Task
	*Need
	quantity, budget   *big.Rat
	ordered, deliverBy time.Time
}

// readNeed checks a statement's values: real dates, a whole quantity, an
// amount as budget, constraints with a known operator and, where they
// compare numbers, a decimal value.
func readNeed(task season.Task) (need, error) {
	n := need{Task: task, Need: needOf(task)}
	var err error
	if n.ordered, err = time.Parse(time.DateOnly, n.OrderDate); err != nil || !corpus.IsDate(n.OrderDate) {
		return n, fmt.Errorf("%s: date_commande %q is not a YYYY-MM-DD date", task.ID, n.OrderDate)
	}
	if n.deliverBy, err = time.Parse(time.DateOnly, n.DeliveryDeadline); err != nil || !corpus.IsDate(n.DeliveryDeadline) {
		return n, fmt.Errorf("%s: date_livraison_max %q is not a YYYY-MM-DD date", task.ID, n.DeliveryDeadline)
	}
	if !corpus.IsCount(n.Quantity) {
		return n, fmt.Errorf("%s: quantite %q is not a whole number", task.ID, n.Quantity)
	}
	n.quantity, _ = corpus.ParseDecimal(n.Quantity)
	if !corpus.IsAmount(n.MaxBudgetInclTax) {
		return n, fmt.Errorf("%s: budget_max_ttc %q is not an amount with two decimals", task.ID, n.MaxBudgetInclTax)
	}
	n.budget, _ = corpus.ParseDecimal(n.MaxBudgetInclTax)
	for i, c := range n.Constraints {
		switch {
		case !slices.Contains(Operators, c.Operator):
			return n, fmt.Errorf("%s: contrainte %d: operateur %q is not one of %v", task.ID, i, c.Operator, Operators)
		case c.Operator != "=" && !corpus.IsDecimal(c.Value):
			return n, fmt.Errorf("%s: contrainte %d: valeur %q is compared as a number but is not a decimal string", task.ID, i, c.Value)
		}
	}
	return n, nil
}

// listing is a product's first entry on its category's catalogue.
type listing struct {
	page, at string // catalogue page and the entry's pointer
	price    string // prix_affiche_ttc
	state    string // etat_affiche
}

// option is what the rules came to for one candidate.
type option struct {
	product string
	outcome solver.Outcome // solver.Met: a valid option; solver.Failed or solver.Undetermined: excluded
	rule    string         // the rule that excluded it, "" for a valid option
	reason  string         // why, in one line
	total   *big.Rat       // G6's total, for a valid option
	facts   []season.Fact  // what the outcome rests on
	basis   season.Formula // a valid option: its total's terms; excluded: any one ruling's facts
	held    []season.Fact  // a valid option: the facts of every rule it meets
}

// purchaser is the state of one purchasing task's walk.
type purchaser struct {
	solver.Walker
	need     need
	listings map[string]listing
}

// solve answers a purchasing need (docs/authoring.md): every
// candidate (each product on a page of the category's catalogue, then each
// reference the statement supplies) is checked against G1..G6, and the
// valid option with the lowest total wins, ties to the smallest path.
//
// The walk is an agent's: a candidate the catalogue already excludes costs
// no call (displayed as not en_stock: G4 fails or contradicts; displayed
// price times the quantity over the budget: G3 or G6 fails), and a
// candidate's resources are fetched in link order, product, supplier,
// delivery conditions and annex, tarif, availability, stopping at the first
// rule not established true. Each path is fetched once per task.
//
// Derive's walk (full) goes on past the first rule that excludes a
// candidate, to every rule that does.
func solve(task season.Task, fetch season.Fetcher, full bool) (*solver.Result, error) {
	n, err := readNeed(task)
	if err != nil {
		return nil, err
	}
	p := &purchaser{Walker: solver.NewWalker(task.ID, fetch, full), need: n, listings: map[string]listing{}}
	candidates, err := p.readCatalogue()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", task.ID, err)
	}
	var options []option
	for _, product := range candidates {
		o, err := p.evaluate(product)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", task.ID, product, err)
		}
		options = append(options, o)
	}
	p.Result.Verdict = NoValidOption
	var best *option
	for i, o := range options {
		if o.outcome == solver.Met && (best == nil || o.total.Cmp(best.total) < 0 || o.total.Cmp(best.total) == 0 && o.product < best.product) {
			best = &options[i]
		}
	}
	if best != nil {
		p.Result.Verdict = solver.Verdict(best.product)
	}
	for _, o := range options {
		p.Rest(o.facts...)
		p.Rest(o.held...)
		reason := o.reason
		if o.rule != "" {
			reason = o.rule + ": " + reason
		}
		c := solver.Criterion{Code: o.product, Outcome: o.outcome, Reason: reason, Basis: o.basis}
		if best != nil && o.product != best.product {
			c.Against, c.Compared = p.against(o, best)
		}
		p.Result.Criteria = append(p.Result.Criteria, c)
	}
	return p.Result, nil
}

// against says how the winner stands against another candidate, when the
// statement supplies it or the catalogue displays it cheaper (solver.Criterion):
// the rules that exclude it, or, valid but dearer in total, the terms that
// show it dearer; and whether a verdict with a trap must be founded
// against it.
func (p *purchaser) against(o option, winner *option) (season.Formula, bool) {
	supplied := slices.Contains(p.need.References, o.product)
	listed, isListed := p.listings[o.product]
	cheaper := isListed && mustDecimal(listed.price).Cmp(mustDecimal(p.listings[winner.product].price)) < 0
	if !supplied && !cheaper {
		return season.Formula{}, false
	}
	// A cheaper candidate the catalogue already shows excluded lures no one.
	compared := supplied || cheaper && listed.state == inStock && !p.overBudget(listed)
	if o.outcome != solver.Met {
		return o.basis, compared
	}
	return p.dearer(o, winner), compared
}

// overBudget reports whether a catalogue entry's displayed price times the
// quantity is over the budget, whatever the fees.
func (p *purchaser) overBudget(listed listing) bool {
	shown := mustDecimal(listed.price)
	return shown.Mul(shown, p.need.quantity).Cmp(p.need.budget) > 0
}

// text is the string a price fact holds, as the tree writes it ("129.00"):
// every price the criteria read is one (solver.ReadFields).
func text(f season.Fact) string {
	s, _ := f.StringValue()
	return s
}

// dearer is what shows a valid option's total above the winner's: the two
// unit prices, when both pay the same delivery conditions' fees; its unit
// price and the winner's terms, when that price times the quantity is
// already above the winner's total; otherwise both totals' terms.
func (p *purchaser) dearer(o option, winner *option) season.Formula {
	price, fees := o.facts[0], o.facts[1]
	winnerPrice, winnerFees := winner.facts[0], winner.facts[1]
	unit := mustDecimal(text(price))
	switch {
	case fees.Resource == winnerFees.Resource && unit.Cmp(mustDecimal(text(winnerPrice))) > 0:
		return season.AllFacts(price, winnerPrice)
	case new(big.Rat).Mul(unit, p.need.quantity).Cmp(winner.total) > 0:
		return season.AllFacts(price, winnerPrice, winnerFees)
	}
	return season.AllFacts(price, fees, winnerPrice, winnerFees)
}

// readCatalogue reads /regles-achat and every page of the category's
// catalogue, and returns the candidates: the catalogue's products in page
// order, then the statement's references it does not list.
func (p *purchaser) readCatalogue() ([]string, error) {
	rules, _, err := p.Get(corpus.ReglesAchat)
	if err != nil {
		return nil, err
	}
	first, err := season.StringAt(rules, corpus.ReglesAchat, season.Pointer("catalogues", p.need.Category))
	if err != nil {
		return nil, fmt.Errorf("category %q: %w", p.need.Category, err)
	}
	var candidates []string
	err = p.WalkPages(first, func(page string, doc pyjson.Object) (bool, error) {
		entries, err := season.ObjectsAt(doc, page, "/entrees")
		if err != nil {
			return false, err
		}
		for i, e := range entries {
			at := season.Pointer("entrees", fmt.Sprint(i))
			f, err := solver.ReadFields(e, page+" "+at, "produit", "prix_affiche_ttc", "etat_affiche")
			if err != nil {
				return false, err
			}
			if !corpus.IsAmount(f["prix_affiche_ttc"]) {
				return false, fmt.Errorf("%s %s/prix_affiche_ttc: %q is not an amount", page, at, f["prix_affiche_ttc"])
			}
			if _, seen := p.listings[f["produit"]]; !seen {
				p.listings[f["produit"]] = listing{page: page, at: at, price: f["prix_affiche_ttc"], state: f["etat_affiche"]}
				candidates = append(candidates, f["produit"])
			}
		}
		return false, nil
	})
	// A catalogue page that answers existe: false hides its entries: they
	// are candidates no one can read, so no option.
	if err != nil && !errors.Is(err, solver.ErrAbsentPage) {
		return nil, err
	}
	for _, ref := range p.need.References {
		if !slices.Contains(candidates, ref) {
			candidates = append(candidates, ref)
		}
	}
	return candidates, nil
}

// ruling is why a rule excludes a candidate: established false, or not
// established, and the facts that say so.
type ruling struct {
	rule    string
	outcome solver.Outcome // solver.Failed or solver.Undetermined
	why     string
	facts   []season.Fact
	// absence says the ruling rests on something missing (no catalogue
	// entry), which no assertion states: it founds nothing.
	absence bool
}

func failed(rule, why string, facts ...season.Fact) *ruling {
	return &ruling{rule: rule, outcome: solver.Failed, why: why, facts: facts}
}

func undetermined(rule, why string, facts ...season.Fact) *ruling {
	return &ruling{rule: rule, outcome: solver.Undetermined, why: why, facts: facts}
}

// linkFields are the members by which a candidate's resources reach one
// another.
var linkFields = []string{"/fournisseur", "/tarif", "/disponibilite", "/conditions_livraison", "/annexe"}

// basis is what a ruling rests on: the fields the rule reads on the
// resource that decides it. A candidate's resources are its own by the
// task's graph, so the links that reach them are left out, but for a
// resource that answers existe: false, which names no product: only its
// link makes it the candidate's.
func (r *ruling) basis() season.Formula {
	if r.absence {
		return season.Formula{}
	}
	if slices.ContainsFunc(r.facts, func(f season.Fact) bool { return f.Field == "/existe" }) {
		return season.AllFacts(r.facts...)
	}
	var facts []season.Fact
	for _, f := range r.facts {
		if !slices.Contains(linkFields, f.Field) {
			facts = append(facts, f)
		}
	}
	return season.AllFacts(facts...)
}

// evaluate applies the rules to one candidate.
func (p *purchaser) evaluate(product string) (option, error) {
	o := option{product: product}
	c, err := p.rules(product)
	if err != nil {
		return o, err
	}
	if len(c.rulings) > 0 {
		first := c.rulings[0]
		o.outcome, o.rule, o.reason, o.facts = first.outcome, first.rule, first.why, first.facts
		bases := make([]season.Formula, len(c.rulings))
		for i, r := range c.rulings {
			bases[i] = r.basis()
			if r.outcome == solver.Failed {
				o.outcome = solver.Failed // a rule established false outweighs one not established
			}
		}
		o.basis = season.AnyOf(bases...)
		return o, nil
	}
	o.outcome, o.total, o.facts, o.basis, o.held = solver.Met, c.total, c.terms, season.AllFacts(c.terms...), c.held
	o.reason = fmt.Sprintf("a valid option, total %s × %s + %s = %s", text(c.terms[0]), p.need.Quantity, text(c.terms[1]), corpus.FormatAmount(c.total))
	return o, nil
}

// candidate is one candidate as the rules are applied to it: what the walk
// has read of it, which later rules read in turn, and what the rules came
// to.
type candidate struct {
	p        *purchaser
	product  string
	listed   listing
	isListed bool
	fields   map[string]string // the product's categorie and links, once read
	supplier map[string]string // the supplier's statut and conditions_livraison; nil when it answers existe: false
	met      []season.Fact     // the hard constraints the product meets
	price    *big.Rat          // G3's unit price, once the tarif is read
	fees     *big.Rat          // G5's fees, once the delivery conditions are read

	rulings []*ruling     // every ruling that excludes it, in the order found
	held    []season.Fact // the facts of every rule it meets
	total   *big.Rat      // G6's total, once weighed
	terms   []season.Fact // the facts the total adds up: the unit price, then the fees
}

// rules applies G1..G6 to a candidate, in link order: what its catalogue
// entry already shows, which costs no call, then its product, supplier,
// delivery conditions and annex, tarif, availability, and total. Solve's
// walk stops at the first rule that excludes it; Derive's goes on to every
// rule whose resources can still be read. A valid option is one with no
// ruling: its total, the terms it adds up and the facts it holds on are
// the candidate's.
func (p *purchaser) rules(product string) (*candidate, error) {
	c := &candidate{p: p, product: product}
	c.listed, c.isListed = p.listings[product]
	for _, check := range []func() (stop bool, err error){
		c.checkCatalogue, c.checkProduct, c.checkListed, c.checkSupplier,
		c.checkDelivery, c.checkTarif, c.checkAvailability, c.checkBudget,
	} {
		if stop, err := check(); err != nil || stop {
			return c, err
		}
	}
	return c, nil
}

// exclude records a ruling and says whether the walk stops there.
func (c *candidate) exclude(r *ruling) bool {
	c.rulings = append(c.rulings, r)
	return !c.p.Full
}

// checkCatalogue excludes, before any call, a candidate its catalogue
// entry already rules out, as an agent reading the catalogue would: shown
// not en_stock, G4 fails or the record contradicts the catalogue; shown at
// a price that times the quantity is over the budget, G6 fails whatever
// the fees, or the tarif contradicts the catalogue and G3 does.
func (c *candidate) checkCatalogue() (bool, error) {
	if !c.isListed {
		return false, nil
	}
	p, listed := c.p, c.listed
	if listed.state != inStock {
		if c.exclude(failed("G4", "the catalogue shows it "+listed.state+": the record is not en_stock, or contradicts the catalogue",
			p.Fact(listed.page, listed.at+"/etat_affiche"))) {
			return true, nil
		}
	}
	if p.overBudget(listed) {
		return c.exclude(failed("G6", fmt.Sprintf("the displayed price %s times %s is over the budget %s, whatever the fees", listed.price, p.need.Quantity, p.need.MaxBudgetInclTax),
			p.Fact(listed.page, listed.at+"/prix_affiche_ttc"))), nil
	}
	return false, nil
}

// checkProduct applies G1: the product exists, is of the need's category
// and meets every hard constraint. A product that answers existe: false
// links to nothing, so both walks stop there.
func (c *candidate) checkProduct() (bool, error) {
	p, product := c.p, c.product
	doc, exists, err := p.Get(product)
	if err != nil {
		return false, err
	}
	if !exists {
		c.exclude(undetermined("G1", "the product answers existe: false", p.Fact(product, "/existe")))
		return true, nil
	}
	if c.fields, err = solver.ReadFields(doc, product, "categorie", "fournisseur", "tarif", "disponibilite"); err != nil {
		return false, err
	}
	c.held = append(c.held, p.Fact(product, "/categorie"))
	if c.fields["categorie"] != p.need.Category {
		if c.exclude(failed("G1", fmt.Sprintf("categorie %q, not %q", c.fields["categorie"], p.need.Category), p.Fact(product, "/categorie"))) {
			return true, nil
		}
	}
	for _, constraint := range p.need.Constraints {
		at := season.Pointer("caracteristiques", constraint.Characteristic)
		if holds, why := constraintHolds(doc, at, constraint); !holds {
			// A missing characteristic is shown by the product's whole set.
			fact := p.Fact(product, "/caracteristiques")
			if _, ok := pyjson.Lookup(doc, at); ok {
				fact = p.Fact(product, at)
			}
			if c.exclude(failed("G1", fmt.Sprintf("%s %s %s: %s", constraint.Characteristic, constraint.Operator, constraint.Value, why), fact)) {
				return true, nil
			}
			continue
		}
		c.met = append(c.met, p.Fact(product, at))
	}
	c.held = append(c.held, c.met...)
	return false, nil
}

// checkListed excludes a candidate on no page of the catalogue (a
// reference only the statement supplies): G3 and G4 ask its records to
// agree with a displayed price and state it does not have. The ruling
// rests on an absence, which founds nothing, and is told with the
// constraints the product meets.
func (c *candidate) checkListed() (bool, error) {
	if c.isListed {
		return false, nil
	}
	r := undetermined("G3", "on no page of the "+c.p.need.Category+" catalogue: no displayed price or state to agree with", c.met...)
	r.absence = true
	return c.exclude(r), nil
}

// checkSupplier applies G2: the product's supplier exists and is actif.
func (c *candidate) checkSupplier() (bool, error) {
	p, supplier := c.p, c.fields["fournisseur"]
	doc, exists, err := p.Get(supplier)
	if err != nil {
		return false, err
	}
	link := p.Fact(c.product, "/fournisseur")
	if !exists {
		return c.exclude(undetermined("G2", "the supplier "+supplier+" answers existe: false", link, p.Fact(supplier, "/existe"))), nil
	}
	if c.supplier, err = solver.ReadFields(doc, supplier, "statut", "conditions_livraison"); err != nil {
		return false, err
	}
	c.held = append(c.held, p.Fact(supplier, "/statut"))
	if c.supplier["statut"] != activeSupplier {
		return c.exclude(failed("G2", "the supplier "+supplier+" is "+c.supplier["statut"], link, p.Fact(supplier, "/statut"))), nil
	}
	return false, nil
}

// checkDelivery applies G5: the supplier delivers the zone in time, and no
// annex rules it out. A supplier that answers existe: false names no
// delivery conditions, so G5 has nothing to read. Each ruling starts from
// the product's link to its supplier, which makes the conditions the
// candidate's.
func (c *candidate) checkDelivery() (bool, error) {
	if c.supplier == nil {
		return false, nil
	}
	p := c.p
	link := p.Fact(c.product, "/fournisseur")
	fees, delivered, rulings, err := p.delivery(c.fields["fournisseur"], c.supplier["conditions_livraison"])
	if err != nil {
		return false, err
	}
	c.fees = fees
	c.held = append(c.held, delivered...)
	for _, r := range rulings {
		r.facts = append([]season.Fact{link}, r.facts...)
		if c.exclude(r) {
			return true, nil
		}
	}
	return false, nil
}

// checkTarif applies G3: the tarif is in force at the order date and
// agrees with the catalogue. A candidate on no catalogue page stops here
// in both walks: G3 and G4 have no displayed price or state to compare its
// records with, and G6 weighs G3's price.
func (c *candidate) checkTarif() (bool, error) {
	if !c.isListed {
		return true, nil
	}
	p, tarif, listed := c.p, c.fields["tarif"], c.listed
	price, rulings, err := p.tarif(c.product, tarif, listed)
	if err != nil {
		return false, err
	}
	if price != nil {
		c.held = append(c.held, p.Fact(tarif, "/date_debut"), p.Fact(tarif, "/date_fin_validite"),
			p.Fact(listed.page, listed.at+"/prix_affiche_ttc"), p.Fact(tarif, "/prix_unitaire_ttc"))
	}
	c.price = price
	for _, r := range rulings {
		if c.exclude(r) {
			return true, nil
		}
	}
	return false, nil
}

// checkAvailability applies G4: a fresh record, en_stock as the catalogue
// shows, with enough units. Its facts are held only when it has none of
// these faults.
func (c *candidate) checkAvailability() (bool, error) {
	p, record, listed := c.p, c.fields["disponibilite"], c.listed
	rulings, err := p.availability(c.product, record, listed)
	if err != nil {
		return false, err
	}
	if p.Body(record) != nil && len(rulings) == 0 {
		c.held = append(c.held, p.Fact(record, "/date_releve"), p.Fact(listed.page, listed.at+"/etat_affiche"),
			p.Fact(record, "/etat"), p.Fact(record, "/quantite_disponible"))
	}
	for _, r := range rulings {
		if c.exclude(r) {
			return true, nil
		}
	}
	return false, nil
}

// checkBudget applies G6: the unit price times the quantity, plus the fees
// once, is within the budget. A candidate whose tarif or delivery
// conditions could not be read is excluded already: there is no total to
// weigh.
func (c *candidate) checkBudget() (bool, error) {
	if c.price == nil || c.fees == nil {
		return true, nil
	}
	p := c.p
	c.total = new(big.Rat).Mul(c.price, p.need.quantity)
	c.total.Add(c.total, c.fees)
	c.terms = []season.Fact{p.Fact(c.fields["tarif"], "/prix_unitaire_ttc"), p.Fact(c.supplier["conditions_livraison"], "/frais_ttc")}
	if c.total.Cmp(p.need.budget) > 0 {
		return c.exclude(failed("G6", fmt.Sprintf("total %s × %s + %s = %s is over the budget %s", text(c.terms[0]), p.need.Quantity,
			text(c.terms[1]), corpus.FormatAmount(c.total), p.need.MaxBudgetInclTax), c.terms...)), nil
	}
	return false, nil
}

// constraintHolds applies one hard constraint to a product's
// characteristic: a missing one does not hold, ">=" and "<=" compare
// decimal values, "=" compares strings.
func constraintHolds(doc pyjson.Object, at string, c Constraint) (bool, string) {
	v, ok := pyjson.Lookup(doc, at)
	if !ok {
		return false, "the product has no such characteristic"
	}
	s, isString := v.(string)
	if !isString {
		return false, "the characteristic is not a string"
	}
	if c.Operator == "=" {
		return s == c.Value, fmt.Sprintf("the product has %q", s)
	}
	got, err := corpus.ParseDecimal(s)
	if err != nil {
		return false, fmt.Sprintf("the product has %q, not a decimal", s)
	}
	cmp := got.Cmp(mustDecimal(c.Value))
	return c.Operator == ">=" && cmp >= 0 || c.Operator == "<=" && cmp <= 0, fmt.Sprintf("the product has %s", s)
}

// delivery applies G5 to a supplier's conditions and their annex, and
// returns the fees (when the conditions can be read) and every ruling that
// excludes the candidate; Solve's walk stops at the first.
func (p *purchaser) delivery(supplier, conditions string) (*big.Rat, []season.Fact, []*ruling, error) {
	link := p.Fact(supplier, "/conditions_livraison")
	doc, exists, err := p.Get(conditions)
	if err != nil {
		return nil, nil, nil, err
	}
	if !exists {
		return nil, nil, []*ruling{undetermined("G5", "the delivery conditions "+conditions+" answer existe: false", link, p.Fact(conditions, "/existe"))}, nil
	}
	f, err := solver.ReadFields(doc, conditions, "delai_jours", "frais_ttc")
	if err != nil {
		return nil, nil, nil, err
	}
	zones, err := season.StringsAt(doc, conditions, "/zones")
	if err != nil {
		return nil, nil, nil, err
	}
	if !corpus.IsCount(f["delai_jours"]) || !corpus.IsAmount(f["frais_ttc"]) {
		return nil, nil, nil, fmt.Errorf("%s: delai_jours %q or frais_ttc %q is not a decimal string of its kind", conditions, f["delai_jours"], f["frais_ttc"])
	}
	fees := mustDecimal(f["frais_ttc"])
	var rulings []*ruling
	exclude := func(r *ruling) bool {
		rulings = append(rulings, r)
		return !p.Full
	}
	facts := []season.Fact{link}
	if i := slices.Index(zones, p.need.Zone); i < 0 {
		if exclude(failed("G5", conditions+" does not deliver "+p.need.Zone, link, p.Fact(conditions, "/zones"))) {
			return fees, nil, rulings, nil
		}
	} else {
		facts = append(facts, p.Fact(conditions, season.Pointer("zones", fmt.Sprint(i))))
	}
	days := mustDecimal(f["delai_jours"]).Num().Int64()
	if arrival := p.need.ordered.AddDate(0, 0, int(days)); arrival.After(p.need.deliverBy) {
		if exclude(failed("G5", fmt.Sprintf("%s days from the order date is %s, after %s", f["delai_jours"], arrival.Format(time.DateOnly), p.need.DeliveryDeadline),
			link, p.Fact(conditions, "/delai_jours"))) {
			return fees, nil, rulings, nil
		}
	}
	if annexRef, _ := doc.Get("annexe"); annexRef != nil {
		annex, ok := annexRef.(string)
		if !ok {
			return nil, nil, nil, fmt.Errorf("%s: annexe is neither a path nor null", conditions)
		}
		annexRulings, err := p.annex(annex)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, r := range annexRulings {
			r.facts = append([]season.Fact{link, p.Fact(conditions, "/annexe")}, r.facts...)
			if exclude(r) {
				return fees, nil, rulings, nil
			}
		}
	}
	if len(rulings) > 0 {
		return fees, nil, rulings, nil
	}
	return fees, append(facts[1:], p.Fact(conditions, "/delai_jours")), nil, nil
}

// annex applies a delivery annex: the zone must not be excluded, the
// quantity must be within its bounds; a null field restricts nothing.
func (p *purchaser) annex(annex string) ([]*ruling, error) {
	doc, exists, err := p.Get(annex)
	if err != nil {
		return nil, err
	}
	if !exists {
		return []*ruling{undetermined("G5", "the annex "+annex+" answers existe: false", p.Fact(annex, "/existe"))}, nil
	}
	var rulings []*ruling
	if excluded, _ := doc.Get("zones_exclues"); excluded != nil {
		zones, err := season.StringsAt(doc, annex, "/zones_exclues")
		if err != nil {
			return nil, err
		}
		if i := slices.Index(zones, p.need.Zone); i >= 0 {
			rulings = append(rulings, failed("G5", "the annex "+annex+" excludes "+p.need.Zone, p.Fact(annex, season.Pointer("zones_exclues", fmt.Sprint(i)))))
		}
	}
	for _, bound := range []struct {
		field string
		out   func(cmp int) bool
	}{
		{"quantite_minimum", func(cmp int) bool { return cmp < 0 }},
		{"quantite_maximum", func(cmp int) bool { return cmp > 0 }},
	} {
		v, _ := doc.Get(bound.field)
		if v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok || !corpus.IsCount(s) {
			return nil, fmt.Errorf("%s: %s is neither a whole number string nor null", annex, bound.field)
		}
		if bound.out(p.need.quantity.Cmp(mustDecimal(s))) {
			rulings = append(rulings, failed("G5", fmt.Sprintf("the annex %s sets %s %s, the need is %s", annex, bound.field, s, p.need.Quantity),
				p.Fact(annex, "/"+bound.field)))
		}
	}
	return rulings, nil
}

// tarif applies G3: the tarif is in force at the order date, bounds
// included, and its unit price is the catalogue's displayed price. It
// returns the unit price when it can be read, and every ruling that
// excludes the candidate.
func (p *purchaser) tarif(product, tarif string, listed listing) (*big.Rat, []*ruling, error) {
	doc, exists, err := p.Get(tarif)
	if err != nil {
		return nil, nil, err
	}
	link := p.Fact(product, "/tarif")
	if !exists {
		return nil, []*ruling{undetermined("G3", "the tarif "+tarif+" answers existe: false", link, p.Fact(tarif, "/existe"))}, nil
	}
	f, err := solver.ReadFields(doc, tarif, "prix_unitaire_ttc", "date_debut", "date_fin_validite")
	if err != nil {
		return nil, nil, err
	}
	var rulings []*ruling
	if p.need.OrderDate < f["date_debut"] {
		rulings = append(rulings, failed("G3", "the tarif starts on "+f["date_debut"]+", after the order date", link, p.Fact(tarif, "/date_debut")))
	}
	if f["date_fin_validite"] < p.need.OrderDate {
		rulings = append(rulings, failed("G3", "the tarif ended on "+f["date_fin_validite"]+", before the order date", link, p.Fact(tarif, "/date_fin_validite")))
	}
	if !corpus.IsAmount(f["prix_unitaire_ttc"]) {
		return nil, nil, fmt.Errorf("%s /prix_unitaire_ttc: %q is not an amount", tarif, f["prix_unitaire_ttc"])
	}
	price := mustDecimal(f["prix_unitaire_ttc"])
	if price.Cmp(mustDecimal(listed.price)) != 0 {
		rulings = append(rulings, undetermined("G3", fmt.Sprintf("the catalogue shows %s, the tarif says %s: the sources contradict each other", listed.price, f["prix_unitaire_ttc"]),
			p.Fact(listed.page, listed.at+"/prix_affiche_ttc"), p.Fact(tarif, "/prix_unitaire_ttc")))
	}
	return price, rulings, nil
}

// availability applies G4: a record dated at most 15 days before the order
// date and not after it, agreeing with the catalogue, en_stock, with enough
// units. It returns every ruling that excludes the candidate, in that
// order.
func (p *purchaser) availability(product, record string, listed listing) ([]*ruling, error) {
	link := p.Fact(product, "/disponibilite")
	doc, exists, err := p.Get(record)
	if err != nil {
		return nil, err
	}
	if !exists {
		return []*ruling{undetermined("G4", "the availability record "+record+" answers existe: false", link, p.Fact(record, "/existe"))}, nil
	}
	f, err := solver.ReadFields(doc, record, "etat", "quantite_disponible", "date_releve")
	if err != nil {
		return nil, err
	}
	if !corpus.IsCount(f["quantite_disponible"]) {
		return nil, fmt.Errorf("%s: quantite_disponible %q is not a whole number", record, f["quantite_disponible"])
	}
	var rulings []*ruling
	taken, _ := time.Parse(time.DateOnly, f["date_releve"])
	if taken.After(p.need.ordered) || p.need.ordered.Sub(taken) > freshness {
		rulings = append(rulings, undetermined("G4", "the record was taken on "+f["date_releve"]+", outside the 15 days up to the order date",
			link, p.Fact(record, "/date_releve")))
	}
	if f["etat"] != listed.state {
		rulings = append(rulings, undetermined("G4", fmt.Sprintf("the catalogue shows %s, the record says %s: the sources contradict each other", listed.state, f["etat"]),
			p.Fact(listed.page, listed.at+"/etat_affiche"), p.Fact(record, "/etat")))
	}
	if f["etat"] != inStock {
		rulings = append(rulings, failed("G4", "the record says "+f["etat"], link, p.Fact(record, "/etat")))
	}
	if mustDecimal(f["quantite_disponible"]).Cmp(p.need.quantity) < 0 {
		rulings = append(rulings, failed("G4", fmt.Sprintf("%s units available, %s needed", f["quantite_disponible"], p.need.Quantity),
			link, p.Fact(record, "/quantite_disponible")))
	}
	return rulings, nil
}

// mustDecimal parses a decimal string already checked well formed.
func mustDecimal(s string) *big.Rat {
	r, err := corpus.ParseDecimal(s)
	if err != nil {
		panic("solver: " + err.Error())
	}
	return r
}
