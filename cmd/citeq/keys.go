package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/citeq/citeq/state"
)

const keysUsage = `usage:
  citeq keys create [--plan free|monthly|annual] [--owner NAME] [--data DIR] [--state DSN]
  citeq keys list   [--data DIR] [--state DSN]
  citeq keys plan   KEY_ID PLAN [--data DIR] [--state DSN]
  citeq keys revoke KEY_ID [--data DIR] [--state DSN]
`

// runKeys manages API keys in the state store the server uses.
func runKeys(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("keys: a subcommand is needed\n%s", keysUsage)
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("keys "+sub, flag.ContinueOnError)
	data := fs.String("data", "var", "data directory (SQLite state at DATA/state.db)")
	dsn := fs.String("state", "", "state store: empty for SQLite at DATA/state.db, or postgres://…")
	plan := fs.String("plan", state.PlanFree, "plan: free (25 queries), monthly (49 USD a month) or annual (490 USD a year)")
	owner := fs.String("owner", "", "who the key is for")
	// Positional arguments may come before the flags.
	var pos []string
	for len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
		pos, rest = append(pos, rest[0]), rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	pos = append(pos, fs.Args()...)
	ctx := context.Background()
	st, err := state.Open(ctx, *dsn, *data)
	if err != nil {
		return err
	}
	defer st.Close()
	switch sub {
	case "create":
		secret, k, err := st.CreateKey(ctx, *plan, *owner)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "key id  %s\nplan    %s\nowner   %s\n\n%s\n\nThe key is shown only now; store it safely. Present it as: Authorization: Bearer <key>\n", k.ID, k.Plan, k.Owner, secret)
	case "list":
		keys, err := st.ListKeys(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY ID\tPLAN\tOWNER\tCREATED\tFREE QUERIES USED\tSTATUS")
		for _, k := range keys {
			used, err := st.QueriesUsed(ctx, "key:"+k.ID)
			if err != nil {
				return err
			}
			status := "active"
			if k.RevokedAt != nil {
				status = "revoked " + k.RevokedAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", k.ID, k.Plan, k.Owner, k.CreatedAt.UTC().Format(time.RFC3339), used, status)
		}
		return tw.Flush()
	case "plan":
		if len(pos) != 2 {
			return fmt.Errorf("keys plan: give KEY_ID and PLAN\n%s", keysUsage)
		}
		if err := st.SetPlan(ctx, pos[0], pos[1]); err != nil {
			return fmt.Errorf("keys plan %s: %w", pos[0], err)
		}
		fmt.Fprintf(stdout, "key %s is now on the %s plan\n", pos[0], pos[1])
	case "revoke":
		if len(pos) != 1 {
			return fmt.Errorf("keys revoke: give KEY_ID\n%s", keysUsage)
		}
		if err := st.RevokeKey(ctx, pos[0]); err != nil {
			return fmt.Errorf("keys revoke %s: %w", pos[0], err)
		}
		fmt.Fprintf(stdout, "key %s revoked\n", pos[0])
	default:
		return fmt.Errorf("keys: unknown subcommand %q\n%s", sub, keysUsage)
	}
	return nil
}
