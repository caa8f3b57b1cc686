// Command citeq ingests the agencies' source files into gated snapshots and serves cited
// aggregates over them (REST and MCP).
//
//	citeq ingest    [--fetch [--since DATE]] [--mirror URL] --raw DIR --data DIR [--state DSN]
//	citeq serve     --data DIR --addr HOST:PORT [--state DSN] [--operator-key FILE] [--allow-insecure-callbacks] [--sync --raw DIR]
//	citeq snapshots --data DIR
//	citeq keys      create|list|plan|revoke
//	citeq query <path> [--filter k=v ...] [--group-by a,b] [--order-by METRIC] [--top N] [--metrics a,b] ... [--json]
//	citeq describe <path> [--values N] [--page P] [--all] [--field NAME]
//	citeq capabilities
//	citeq verify <citation JSON | ->
package main

import (
	"fmt"
	"os"
)

// usageFormat is the help text; its one verb is an example of --from.
const usageFormat = `citeq — cited aggregates over U.S. public data

usage:
  citeq ingest    [--fetch [--since YYYY[-MM]]] [--mirror URL] [--raw DIR] [--data DIR] [--state DSN]
                  (--since: also the publishers' archives from that date on)
  citeq serve     [--data DIR] [--addr HOST:PORT] [--state DSN] [--trusted-proxy CIDR ...]
                  [--operator-key FILE]   (a key kept in FILE, not limited by the free quota)
                  [--allow-insecure-callbacks]   (local testing only: http and loopback callbacks)
                  [--sync [--raw DIR] [--mirror URL] [--sync-every [ID=]DURATION] [--sync-only ID,...]
                   [--sync-stale-after N]]   (check each source on its cadence, ingest and promote what changed)
  citeq snapshots [--data DIR]
  citeq keys create [--plan free|monthly|annual] [--owner NAME]   (prints the key once)
  citeq keys list | keys plan KEY_ID PLAN | keys revoke KEY_ID      ([--data DIR] [--state DSN])

client of a running server (--server URL, default $CITEQ_SERVER, else http://127.0.0.1:8080):
  citeq query <path> [--filter k=v ...] [--group-by a,b] [--order-by METRIC] [--order asc|desc]
                     [--top N] [--as-of DATE] [--from NAME=DATE] [--to NAME=DATE]
                     [--records] [--limit N] [--metrics a,b] [--json] [--server URL]
  citeq describe <path> [--values N] [--page P] [--all] [--field NAME] [--json] [--server URL]
  citeq capabilities [--json] [--server URL]
  citeq verify <citation JSON | -> [--json] [--server URL]
(the API key sent as Authorization: Bearer is $CITEQ_API_KEY, else the one in the file
$CITEQ_API_KEY_FILE names, else, to a server on this machine, the operator key that make run
keeps in var/operator.key)

--raw defaults to $CITEQ_RAW, else ../shared/data/raw; --data to ./var; --addr to 127.0.0.1:8080;
--state to SQLite at DATA/state.db (postgres://… to share keys, quotas and subscriptions).
A repeated --filter for one name gives a list; --from NAME=2015 sets NAME_date_from (e.g. %s).
--json prints the server's response body unchanged; verify reads the citation from stdin with -.
Tables fit $COLUMNS, else the terminal, else 100 characters (COLUMNS=0: no limit).
`

// usage is the help text, its example taken from the capability definitions.
func usage() string {
	ex := examples()
	return fmt.Sprintf(usageFormat, "--from "+ex.dateRange+"=2015 sets "+ex.dateRange+"_date_from")
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage())
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "ingest":
		err = runIngest(os.Args[2:], os.Stdout, os.Stderr)
	case "serve":
		err = runServe(os.Args[2:], os.Stdout)
	case "keys":
		err = runKeys(os.Args[2:], os.Stdout)
	case "snapshots":
		err = runSnapshots(os.Args[2:], os.Stdout)
	case "query":
		err = runQuery(os.Args[2:], os.Stdout)
	case "describe":
		err = runDescribe(os.Args[2:], os.Stdout)
	case "capabilities":
		err = runCapabilities(os.Args[2:], os.Stdout)
	case "verify":
		err = runVerify(os.Args[2:], os.Stdin, os.Stdout)
	case "help", "-h", "--help":
		fmt.Print(usage())
		return
	default:
		fmt.Fprintf(os.Stderr, "citeq: unknown command %q\n\n%s", os.Args[1], usage())
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "citeq:", err)
		os.Exit(1)
	}
}

func defaultRaw() string {
	if v := os.Getenv("CITEQ_RAW"); v != "" {
		return v
	}
	return "../shared/data/raw"
}
