package solver

// What the external tests of the real season read of the solver's
// internals: they import the tracks, which import this package, so they
// cannot be in it.
var (
	Forms     = forms
	WithForms = withForms
	Served    = served
)

// The rules problems name.
const (
	RuleVerdict      = ruleVerdict
	RuleCalls        = ruleCalls
	RuleComposition  = ruleComposition
	RuleBounds       = ruleBounds
	RuleServed       = ruleServed
	RuleProbative    = ruleProbative
	RuleGraph        = ruleGraph
	RuleOwn          = ruleOwn
	RuleCommonList   = ruleCommonList
	RuleForms        = ruleForms
	RuleAlternatives = ruleAlternatives
	RuleRoom         = ruleRoom
	RuleDerivation   = ruleDerivation
)
