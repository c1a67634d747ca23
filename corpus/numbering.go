package corpus

import "strings"

// ActivityInitials abbreviates an activity code as the register's decision
// numbers write it (ASAFR-CM-2022-0417): the initial of each word,
// change-manuel is CM; a single word keeps its first two letters,
// domiciliation is DO.
func ActivityInitials(code string) string {
	words := strings.Split(code, "-")
	if len(words) == 1 && len(code) >= 2 {
		return strings.ToUpper(code[:2])
	}
	var b strings.Builder
	for _, word := range words {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]))
		}
	}
	return b.String()
}
