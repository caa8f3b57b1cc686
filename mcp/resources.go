package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/service"
)

// Resource URI templates. A snapshot is citeq://<capability>/<as_of> (as_of latest: the
// newest); its schema, the values of one filter and one value hang below it. Evidence of a
// cited row is citeq://evidence/<raw_file_sha256>/<source_file>/<sheet>/<source_row>, each
// segment percent-encoded.
const (
	SnapshotTemplate = "citeq://{capability}/{as_of}"
	SchemaTemplate   = "citeq://{capability}/{as_of}/schema"
	ValuesTemplate   = "citeq://{capability}/{as_of}/values/{field}"
	ValueTemplate    = "citeq://{capability}/{as_of}/values/{field}/{value}"
	EvidenceTemplate = "citeq://evidence/{raw_file_sha256}/{source_file}/{sheet}/{source_row}"
)

const jsonType = "application/json"

type resDef struct {
	res     *sdk.Resource
	handler sdk.ResourceHandler
}

type tmplDef struct {
	tmpl    *sdk.ResourceTemplate
	handler sdk.ResourceHandler
}

// snapshotResources lists every served snapshot as a resource.
func snapshotResources(svc *service.Service, observe Observer) []resDef {
	var out []resDef
	for _, c := range svc.Served() {
		for _, d := range svc.ServedDates(c.ID) {
			out = append(out, resDef{
				res: &sdk.Resource{URI: "citeq://" + c.ID + "/" + d, Name: c.ID + "/" + d, Title: c.Title + ", as of " + d,
					MIMEType: jsonType},
				handler: readHandler(svc, observe),
			})
		}
	}
	return out
}

// resourceTemplates are the templates of the snapshot, schema, values and evidence resources.
func resourceTemplates(svc *service.Service, observe Observer) []tmplDef {
	h := readHandler(svc, observe)
	return []tmplDef{
		{&sdk.ResourceTemplate{URITemplate: SnapshotTemplate, Name: "snapshot", MIMEType: jsonType,
			Description: "a served snapshot (as_of latest: the newest): rows, source files with sha256, gates"}, h},
		{&sdk.ResourceTemplate{URITemplate: SchemaTemplate, Name: "schema", MIMEType: jsonType,
			Description: "the full schema with that snapshot's codebooks and values (latest: GET /v1/<path>/schema)"}, h},
		{&sdk.ResourceTemplate{URITemplate: ValuesTemplate, Name: "filter values", MIMEType: jsonType,
			Description: "every value of a filter in that snapshot, with its description and rows"}, h},
		{&sdk.ResourceTemplate{URITemplate: ValueTemplate, Name: "filter value", MIMEType: jsonType,
			Description: "one value of a filter: its description and rows"}, h},
		{&sdk.ResourceTemplate{URITemplate: EvidenceTemplate, Name: "evidence", MIMEType: jsonType,
			Description: "the literal cells of a cited source row, its raw file re-hashed (get_source_evidence_v1)"}, h},
	}
}

// readHandler reads every citeq:// resource; a refusal is told to observe.
func readHandler(svc *service.Service, observe Observer) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		uri := req.Params.URI
		seg, ok := segments(uri)
		if !ok {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		var body []byte
		var e *apierror.Error
		ttl := pinnedTTL
		switch {
		case seg[0] == "evidence" && len(seg) == 5:
			row, err := strconv.Atoi(seg[4])
			if err != nil {
				return nil, sdk.ResourceNotFoundError(uri)
			}
			cite := jsonw.MustRender(jsonw.Obj{{K: "raw_file_sha256", V: seg[1]}, {K: "source_file", V: seg[2]}, {K: "sheet", V: seg[3]}, {K: "source_row", V: row}})
			body, e = svc.Evidence(ctx, cite)
			ttl = 0
		case len(seg) == 2:
			body, e = svc.SnapshotDoc(seg[0], seg[1])
		case len(seg) == 3 && seg[2] == "schema":
			// The schema lists the snapshots served, which grow.
			body, e = svc.SchemaAt(seg[0], seg[1])
			ttl = latestTTL
		case len(seg) == 4 && seg[2] == "values":
			body, e = svc.FieldValues(seg[0], seg[1], seg[3])
		case len(seg) == 5 && seg[2] == "values":
			body, e = svc.FieldValueDoc(seg[0], seg[1], seg[3], seg[4])
		default:
			return nil, sdk.ResourceNotFoundError(uri)
		}
		if e != nil {
			observe("", "", e, header(req))
			// A resource that is not found is -32602 (invalid params), as the SDK answers it.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Code + ": " + e.Message, Data: e.Body()}
		}
		if seg[0] != "evidence" && seg[1] == "latest" {
			ttl = latestTTL
		}
		res := &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: jsonType, Text: string(body)}}}
		res.TTLMs = int(ttl.Milliseconds())
		return res, nil
	}
}

// segments splits a citeq:// URI into its decoded path segments, the host first.
func segments(uri string) ([]string, bool) {
	rest, ok := strings.CutPrefix(uri, "citeq://")
	if !ok || rest == "" {
		return nil, false
	}
	parts := strings.Split(rest, "/")
	for i, p := range parts {
		d, err := url.PathUnescape(p)
		if err != nil || d == "" {
			return nil, false
		}
		parts[i] = d
	}
	return parts, true
}

// escape percent-encodes everything in s but the unreserved characters of RFC 3986, so that a
// file or sheet name is one segment of a URI template variable.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
	}
	return b.String()
}

// EvidenceURI is the evidence resource of a record-level citation.
func EvidenceURI(sha, file, sheet string, row int) string {
	return "citeq://evidence/" + escape(sha) + "/" + escape(file) + "/" + escape(sheet) + "/" + strconv.Itoa(row)
}

// maxLinks is the most evidence links an answer carries.
const maxLinks = 4

// evidenceLinks are resource links to the evidence of an answer's citations (their verify
// rows): the totals' first, then the rows', at most maxLinks.
func evidenceLinks(body []byte) []sdk.Content {
	var a struct {
		Summary struct {
			CitationRefs []string `json:"citation_refs"`
		} `json:"summary"`
		Rows []struct {
			Lineage struct {
				CitationRef string `json:"citation_ref"`
			} `json:"lineage"`
		} `json:"rows"`
		Citations map[string]struct {
			Verify *struct {
				SourceFile string `json:"source_file"`
				Sheet      string `json:"sheet"`
				SourceRow  int    `json:"source_row"`
				SHA256     string `json:"raw_file_sha256"`
			} `json:"verify"`
		} `json:"citations"`
	}
	if json.Unmarshal(body, &a) != nil {
		return nil
	}
	refs := append([]string{}, a.Summary.CitationRefs...)
	for _, r := range a.Rows {
		refs = append(refs, r.Lineage.CitationRef)
	}
	var out []sdk.Content
	seen := map[string]bool{}
	for _, ref := range refs {
		c, ok := a.Citations[ref]
		if !ok || c.Verify == nil || seen[ref] || len(out) == maxLinks {
			continue
		}
		seen[ref] = true
		v := c.Verify
		out = append(out, &sdk.ResourceLink{URI: EvidenceURI(v.SHA256, v.SourceFile, v.Sheet, v.SourceRow),
			Name: "evidence " + ref, MIMEType: jsonType})
	}
	return out
}

// maxCompletions is the most values one completion returns.
const maxCompletions = 100

// completer answers completion/complete for the arguments of the resource templates:
// capability ids, as_of dates, filter names and filter values (codebook codes among them).
func completer(svc *service.Service) func(context.Context, *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	return func(ctx context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
		p := req.Params
		known := map[string]string{}
		if p.Context != nil {
			known = p.Context.Arguments
		}
		var values []string
		var total int
		if p.Ref != nil && p.Ref.Type == "ref/resource" {
			id := known["capability"]
			switch p.Argument.Name {
			case "capability":
				var ids []string
				for _, c := range svc.Served() {
					ids = append(ids, c.ID)
				}
				values, total = service.Complete(ids, p.Argument.Value, maxCompletions)
			case "as_of":
				values, total = service.Complete(append([]string{"latest"}, svc.ServedDates(id)...), p.Argument.Value, maxCompletions)
			case "field":
				if c := capability.ByID(id); c != nil {
					values, total = service.Complete(c.FilterNames()[1:], p.Argument.Value, maxCompletions)
				}
			case "value":
				values, total = svc.CompleteValues(id, known["as_of"], known["field"], p.Argument.Value, maxCompletions)
			}
		}
		if values == nil {
			values = []string{}
		}
		return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: values, Total: total, HasMore: total > len(values)}}, nil
	}
}
