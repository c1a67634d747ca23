package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/tools/privatefile"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
)

// runReceiptKey draws a season's receipt key into a new file, readable by
// its owner only, and prints its public half: the cle_recus the season
// service publishes and every receipt is checked against.
func runReceiptKey(args []string, stdout io.Writer) error {
	fs := newFlagSet("receipt-key")
	out := fs.String("o", "", "the new key's file (required; never overwritten): the season service's receipt_key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return badUsage(errors.New("-o is required: the file the new receipt key is written to"))
	}
	key, public, err := seasonservice.NewReceiptKey()
	if err != nil {
		return err
	}
	if err := privatefile.Create(*out, key); err != nil {
		return badInput(err)
	}
	fmt.Fprintf(stdout, "wrote a receipt key to %s; its public half (cle_recus): %s\n",
		printable.String(*out), base64.StdEncoding.EncodeToString(public))
	return nil
}
