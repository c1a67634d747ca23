package corpus

import (
	"fmt"
	"math/big"
	"regexp"
)

// The purchasing track writes amounts and quantities as decimal strings
// (docs/contract.md, section 3), never as JSON numbers, so that Python and Go read
// the same value. One spelling per value: no sign, no exponent, no leading
// zero. Amounts are euros with two decimals, so two equal amounts are the
// same string; counts are whole numbers; a characteristic compared with >=
// or <= is any decimal.
var (
	decimalPattern = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[0-9]+)?$`)
	amountPattern  = regexp.MustCompile(`^(0|[1-9][0-9]*)\.[0-9]{2}$`)
	countPattern   = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
)

// IsDecimal reports whether s is a decimal string: "12", "0.5", "1249.90".
func IsDecimal(s string) bool { return decimalPattern.MatchString(s) }

// IsAmount reports whether s is an amount in euros: "1249.90", "0.00".
func IsAmount(s string) bool { return amountPattern.MatchString(s) }

// IsCount reports whether s is a whole quantity: "12", "0".
func IsCount(s string) bool { return countPattern.MatchString(s) }

// ParseDecimal reads a decimal string as an exact rational: arithmetic on
// amounts never goes through binary floating point.
func ParseDecimal(s string) (*big.Rat, error) {
	if !IsDecimal(s) {
		return nil, fmt.Errorf("%q is not a decimal string", s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q is not a decimal string", s)
	}
	return r, nil
}

// FormatAmount writes an exact amount with two decimals, rounding half
// away from zero below the cent (a total of amounts never needs it).
func FormatAmount(r *big.Rat) string {
	return r.FloatString(2)
}
