package corpus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestActivityInitials(t *testing.T) {
	tests := []struct{ code, want string }{
		{"change-manuel", "CM"},
		{"intermediation-credit", "IC"},
		{"transfert-fonds", "TF"},
		{"domiciliation", "DO"},
		{"a-b-c", "ABC"},
		{"x", "X"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ActivityInitials(tt.code), tt.code)
	}
}
