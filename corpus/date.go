package corpus

import (
	"strings"
	"time"
)

// IsDate reports whether s is a calendar date written YYYY-MM-DD, the one
// form of every date of the corpus and the statements
// (docs/contract.md, section 3): "2026-02-30" is not one. Dates in that
// form order as strings do, which the criteria rely on.
func IsDate(s string) bool {
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Format(time.DateOnly) == s
}

// IsDateMember reports whether a member's name marks it as a date: date_*,
// something after the prefix. A track may hold dates under other names
// too, which its own rules list.
func IsDateMember(name string) bool {
	return len(name) > len("date_") && strings.HasPrefix(name, "date_")
}
