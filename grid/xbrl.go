package grid

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// XBRL instance documents (FERC's Form 1 filings since 2021) are read as two sheets.
//
// Sheet "facts" has a header row 1 and one row per fact (an item element with a contextRef)
// in document order, so the n-th fact of the document is row n+1. Its columns are fixed,
// XBRLFactColumns, then one column per dimension of the contexts the facts use, headed by
// the dimension's QName as written (ferc:PlantNameAxis), in order of first appearance among
// the document's contexts. A fact's row repeats what its context and unit say: the entity
// identifier and its scheme, the period (start and end dates, or the instant), the unit's
// measures as written ("iso4217:USD", a divide as "iso4217:USD/utr:kW", a product joined with
// "*"), and each dimension's member: the explicit member's QName, or the typed member's
// content. The value is the element's text as written; xsi:nil facts have "true" in nil and
// an empty value.
//
// Sheet "instance" lists what the document itself declares, one item a row under a header
// row (item, value): each schemaRef (the taxonomy entry point), then the number of contexts,
// units, facts and footnote links, counted in a second pass over the document's elements.
const (
	XBRLFactsSheet    = "facts"
	XBRLInstanceSheet = "instance"
)

// XBRLFactColumns are the fixed columns of the facts sheet, in order.
var XBRLFactColumns = []string{"concept", "namespace", "id", "context", "entity_scheme", "entity", "period_start",
	"period_end", "period_instant", "unit", "decimals", "precision", "nil", "value"}

const (
	nsXBRLI  = "http://www.xbrl.org/2003/instance"
	nsXBRLDI = "http://xbrl.org/2006/xbrldi"
	nsLink   = "http://www.xbrl.org/2003/linkbase"
	nsXLink  = "http://www.w3.org/1999/xlink"
	nsXSI    = "http://www.w3.org/2001/XMLSchema-instance"
)

// maxXBRLDepth bounds element nesting; instance documents are a few levels deep.
const maxXBRLDepth = 64

// looksXBRL reports whether data opens like an XML document whose root is an XBRL instance.
func looksXBRL(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	if len(t) == 0 || t[0] != '<' {
		return false
	}
	head := t[:min(len(t), 8192)]
	return bytes.Contains(head, []byte(nsXBRLI)) && (bytes.Contains(head, []byte(":xbrl")) || bytes.Contains(head, []byte("<xbrl")))
}

type xbrlContext struct {
	scheme, entity      string
	start, end, instant string
	dims                []xbrlMember
}

type xbrlMember struct{ dimension, value string }

type xbrlFact struct {
	name                                   xml.Name
	id, context, unit, decimals, precision string
	nil                                    bool
	value                                  string
}

// xbrlDoc is what one pass over an instance collects.
type xbrlDoc struct {
	schemaRefs []string
	contexts   map[string]*xbrlContext
	ctxOrder   []string
	units      map[string]string
	facts      []xbrlFact
	footnotes  int
}

func xmlAttr(se xml.StartElement, space, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value, true
		}
	}
	return "", false
}

// walk reads the element just opened (at depth) to its end: visit is called on every element
// inside it, with that element's depth, and reports whether it read the element to its own
// end (else walk goes on inside it); text receives the character data walk reads.
func walk(dec *xml.Decoder, depth int, visit func(xml.StartElement, int) (bool, error), text func(xml.CharData)) error {
	level := 1
	for level > 0 {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth+level > maxXBRLDepth {
				return errors.New("elements nested too deep")
			}
			read := false
			if visit != nil {
				if read, err = visit(t, depth+level); err != nil {
					return err
				}
			}
			if !read {
				level++
			}
		case xml.EndElement:
			level--
		case xml.CharData:
			if text != nil {
				text(t)
			}
		}
	}
	return nil
}

// elementText reads the character data of the element just opened, up to its end, nested
// elements' text included.
func elementText(dec *xml.Decoder, depth int) (string, error) {
	var b strings.Builder
	err := walk(dec, depth, nil, func(c xml.CharData) { b.Write(c) })
	return b.String(), err
}

// skipElement consumes the element just opened.
func skipElement(dec *xml.Decoder, depth int) error { return walk(dec, depth, nil, nil) }

func isXBRLI(se xml.StartElement, local string) bool {
	return se.Name.Space == nsXBRLI && se.Name.Local == local
}

func (d *xbrlDoc) context(dec *xml.Decoder, se xml.StartElement) error {
	id, _ := xmlAttr(se, "", "id")
	if id == "" {
		return errors.New("a context without an id")
	}
	if _, dup := d.contexts[id]; dup {
		return fmt.Errorf("context %q is defined twice", id)
	}
	c := &xbrlContext{}
	dates := map[string]*string{"startDate": &c.start, "endDate": &c.end, "instant": &c.instant}
	err := walk(dec, 2, func(t xml.StartElement, depth int) (bool, error) {
		switch {
		case isXBRLI(t, "identifier"):
			c.scheme, _ = xmlAttr(t, "", "scheme")
			v, err := elementText(dec, depth)
			c.entity = strings.TrimSpace(v)
			return true, err
		case t.Name.Space == nsXBRLI && dates[t.Name.Local] != nil:
			v, err := elementText(dec, depth)
			*dates[t.Name.Local] = strings.TrimSpace(v)
			return true, err
		case t.Name.Space == nsXBRLDI && t.Name.Local == "explicitMember":
			dim, _ := xmlAttr(t, "", "dimension")
			v, err := elementText(dec, depth)
			c.dims = append(c.dims, xbrlMember{dim, strings.TrimSpace(v)})
			return true, err
		case t.Name.Space == nsXBRLDI && t.Name.Local == "typedMember":
			// The member is the content of the typed member's one child element.
			dim, _ := xmlAttr(t, "", "dimension")
			value, seen := "", false
			err := walk(dec, depth, func(_ xml.StartElement, depth int) (bool, error) {
				v, err := elementText(dec, depth)
				if !seen {
					value, seen = v, true
				}
				return true, err
			}, nil)
			c.dims = append(c.dims, xbrlMember{dim, value})
			return true, err
		}
		return false, nil
	}, nil)
	if err != nil {
		return err
	}
	d.contexts[id] = c
	d.ctxOrder = append(d.ctxOrder, id)
	return nil
}

func (d *xbrlDoc) unit(dec *xml.Decoder, se xml.StartElement) error {
	id, _ := xmlAttr(se, "", "id")
	if _, dup := d.units[id]; dup {
		return fmt.Errorf("unit %q is defined twice", id)
	}
	// measures collects the measures inside an element into *to; a denominator's go to den.
	var num, den []string
	var measures func(to *[]string) func(xml.StartElement, int) (bool, error)
	measures = func(to *[]string) func(xml.StartElement, int) (bool, error) {
		return func(t xml.StartElement, depth int) (bool, error) {
			switch {
			case isXBRLI(t, "measure"):
				v, err := elementText(dec, depth)
				*to = append(*to, strings.TrimSpace(v))
				return true, err
			case isXBRLI(t, "unitDenominator"):
				return true, walk(dec, depth, measures(&den), nil)
			}
			return false, nil
		}
	}
	if err := walk(dec, 2, measures(&num), nil); err != nil {
		return err
	}
	u := strings.Join(num, "*")
	if len(den) > 0 {
		u += "/" + strings.Join(den, "*")
	}
	d.units[id] = u
	return nil
}

func (d *xbrlDoc) fact(dec *xml.Decoder, se xml.StartElement, ctx string, depth int) error {
	f := xbrlFact{name: se.Name, context: ctx}
	f.id, _ = xmlAttr(se, "", "id")
	f.unit, _ = xmlAttr(se, "", "unitRef")
	f.decimals, _ = xmlAttr(se, "", "decimals")
	f.precision, _ = xmlAttr(se, "", "precision")
	if v, ok := xmlAttr(se, nsXSI, "nil"); ok {
		f.nil = strings.TrimSpace(v) == "true" || strings.TrimSpace(v) == "1"
	}
	v, err := elementText(dec, depth)
	if err != nil {
		return err
	}
	f.value = v
	d.facts = append(d.facts, f)
	return nil
}

// readXBRL makes one pass over the document.
func readXBRL(data []byte) (*xbrlDoc, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	d := &xbrlDoc{contexts: map[string]*xbrlContext{}, units: map[string]string{}}
	depth := 0
	rootSeen := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if rootSeen {
					return nil, errors.New("a second root element")
				}
				if t.Name.Space != nsXBRLI || t.Name.Local != "xbrl" {
					return nil, fmt.Errorf("the root element is %s, not xbrli:xbrl", t.Name.Local)
				}
				rootSeen = true
				depth++
				continue
			}
			if depth >= maxXBRLDepth {
				return nil, errors.New("elements nested too deep")
			}
			if ctx, ok := xmlAttr(t, "", "contextRef"); ok {
				if err := d.fact(dec, t, ctx, depth+1); err != nil {
					return nil, err
				}
				continue
			}
			if depth == 1 {
				switch {
				case t.Name.Space == nsXBRLI && t.Name.Local == "context":
					if err := d.context(dec, t); err != nil {
						return nil, err
					}
					continue
				case t.Name.Space == nsXBRLI && t.Name.Local == "unit":
					if err := d.unit(dec, t); err != nil {
						return nil, err
					}
					continue
				case t.Name.Space == nsLink && t.Name.Local == "schemaRef":
					href, _ := xmlAttr(t, nsXLink, "href")
					d.schemaRefs = append(d.schemaRefs, href)
					if err := skipElement(dec, depth+1); err != nil {
						return nil, err
					}
					continue
				case t.Name.Space == nsLink && t.Name.Local == "footnoteLink":
					d.footnotes++
					if err := skipElement(dec, depth+1); err != nil {
						return nil, err
					}
					continue
				}
			}
			depth++ // a tuple or another container: its facts are read inside it
		case xml.EndElement:
			depth--
		}
	}
	if !rootSeen {
		return nil, errors.New("no xbrli:xbrl root element")
	}
	return d, nil
}

// countElements is the second reading: it counts the contexts, units, facts and footnote
// links by their tags alone.
func countElements(data []byte) (contexts, units, facts, footnotes int, err error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	inFact := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return contexts, units, facts, footnotes, nil
		}
		if err != nil {
			return 0, 0, 0, 0, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if inFact > 0 {
				inFact++
				continue
			}
			switch {
			case t.Name.Space == nsXBRLI && t.Name.Local == "context":
				contexts++
			case t.Name.Space == nsXBRLI && t.Name.Local == "unit":
				units++
			case t.Name.Space == nsLink && t.Name.Local == "footnoteLink":
				footnotes++
			default:
				if _, ok := xmlAttr(t, "", "contextRef"); ok {
					facts++
					inFact = 1
				}
			}
		case xml.EndElement:
			if inFact > 0 {
				inFact--
			}
		}
	}
}

func textCell(s string) Cell {
	if s == "" {
		return Cell{}
	}
	return Cell{Kind: Text, Value: s}
}

// valueCell classifies a fact's value: a number where its text is one.
func valueCell(s string) Cell {
	if strings.TrimSpace(s) == "" {
		return Cell{}
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return Cell{Kind: Number, Value: s}
	}
	return Cell{Kind: Text, Value: s}
}

func parseXBRL(data []byte) (*Workbook, error) {
	d, err := readXBRL(data)
	if err != nil {
		return nil, fmt.Errorf("xbrl: %w", err)
	}
	nc, nu, nf, nfn, err := countElements(data)
	if err != nil {
		return nil, fmt.Errorf("xbrl: %w", err)
	}
	// Dimension columns, in order of first appearance among the contexts.
	dimCol := map[string]int{}
	var dims []string
	for _, id := range d.ctxOrder {
		for _, m := range d.contexts[id].dims {
			if _, ok := dimCol[m.dimension]; !ok {
				dimCol[m.dimension] = len(XBRLFactColumns) + len(dims)
				dims = append(dims, m.dimension)
			}
		}
	}
	facts := &Sheet{Name: XBRLFactsSheet}
	header := make([]Cell, 0, len(XBRLFactColumns)+len(dims))
	for _, h := range append(append([]string{}, XBRLFactColumns...), dims...) {
		header = append(header, Cell{Kind: Text, Value: h})
	}
	facts.rows = append(facts.rows, header)
	for _, f := range d.facts {
		c, ok := d.contexts[f.context]
		if !ok {
			return nil, fmt.Errorf("xbrl: fact %s refers to context %q, which the document does not define", f.name.Local, f.context)
		}
		unit := ""
		if f.unit != "" {
			u, ok := d.units[f.unit]
			if !ok {
				return nil, fmt.Errorf("xbrl: fact %s refers to unit %q, which the document does not define", f.name.Local, f.unit)
			}
			unit = u
		}
		row := make([]Cell, len(XBRLFactColumns)+len(dims))
		nilText := ""
		if f.nil {
			nilText = "true"
		}
		for i, v := range []string{f.name.Local, f.name.Space, f.id, f.context, c.scheme, c.entity, c.start, c.end, c.instant,
			unit, f.decimals, f.precision, nilText} {
			row[i] = textCell(v)
		}
		row[len(XBRLFactColumns)-1] = valueCell(f.value)
		for _, m := range c.dims {
			row[dimCol[m.dimension]] = textCell(m.value)
		}
		facts.rows = append(facts.rows, trimRow(row))
	}
	inst := &Sheet{Name: XBRLInstanceSheet}
	inst.rows = append(inst.rows, []Cell{{Kind: Text, Value: "item"}, {Kind: Text, Value: "value"}})
	for _, s := range d.schemaRefs {
		inst.rows = append(inst.rows, []Cell{{Kind: Text, Value: "schemaRef"}, textCell(s)})
	}
	for _, kv := range []struct {
		item string
		n    int
	}{{"contexts", nc}, {"units", nu}, {"facts", nf}, {"footnoteLinks", nfn}} {
		inst.rows = append(inst.rows, []Cell{{Kind: Text, Value: kv.item}, {Kind: Number, Value: strconv.Itoa(kv.n)}})
	}
	return &Workbook{Format: "xbrl", Sheets: []*Sheet{facts, inst}}, nil
}
