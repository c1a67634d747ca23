package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	proveitcorpus "github.com/arkforge/proveit-corpus"
)

func TestVersion(t *testing.T) {
	for _, flag := range []string{"-version", "--version"} {
		code, stdout, stderr := runCLI(flag)
		assert.Equal(t, 0, code, flag)
		assert.Equal(t, "proveit-corpus "+proveitcorpus.Version()+"\n", stdout, flag)
		assert.Empty(t, stderr, flag)
	}
}
