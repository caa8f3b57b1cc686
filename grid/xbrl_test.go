package grid

import (
	"strings"
	"testing"
)

// smallXBRL is an instance in the layout of FERC's filings: a context with a typed and an
// explicit dimension, an instant context, a divide unit, a nil fact, a fact that comes
// before the context it uses, and a footnote link.
const smallXBRL = `<?xml version="1.0" encoding="UTF-8"?>
<!--a filer's tool comment-->
<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ferc="http://ferc.gov/form/2022-01-01/ferc" xmlns:xbrldi="http://xbrl.org/2006/xbrldi" xmlns:iso4217="http://www.xbrl.org/2003/iso4217" xmlns:utr="http://www.xbrl.org/2009/utr" xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink">
  <link:schemaRef xlink:href="https://eCollection.ferc.gov/taxonomy/form1/2022-01-01/form/form1/form-1_2022-01-01.xsd" xlink:type="simple"/>
  <xbrli:context id="c-1">
    <xbrli:entity><xbrli:identifier scheme="http://www.ferc.gov/CID">C001130</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:startDate>2021-01-01</xbrli:startDate><xbrli:endDate>2021-12-31</xbrli:endDate></xbrli:period>
  </xbrli:context>
  <ferc:RespondentLegalName id="f-1" contextRef="c-1">The Empire &amp; District</ferc:RespondentLegalName>
  <ferc:CostPerKilowattOfInstalledCapacity id="f-2" contextRef="c-2" unitRef="u-2" decimals="4">840.2468</ferc:CostPerKilowattOfInstalledCapacity>
  <xbrli:unit id="u-1"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
  <xbrli:unit id="u-2"><xbrli:divide><xbrli:unitNumerator><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unitNumerator><xbrli:unitDenominator><xbrli:measure>utr:kW</xbrli:measure></xbrli:unitDenominator></xbrli:divide></xbrli:unit>
  <xbrli:context id="c-2">
    <xbrli:entity>
      <xbrli:identifier scheme="http://www.ferc.gov/CID">C001130</xbrli:identifier>
      <xbrli:segment>
        <xbrldi:typedMember dimension="ferc:PlantNameAxis">
          <ferc:PlantNameDomain>Riverton (10-11-12)</ferc:PlantNameDomain>
        </xbrldi:typedMember>
        <xbrldi:explicitMember dimension="ferc:UtilityTypeAxis">ferc:ElectricUtilityMember</xbrldi:explicitMember>
      </xbrli:segment>
    </xbrli:entity>
    <xbrli:period><xbrli:instant>2021-12-31</xbrli:instant></xbrli:period>
  </xbrli:context>
  <ferc:CostOfPlant id="f-3" contextRef="c-2" unitRef="u-1" decimals="0">252191666</ferc:CostOfPlant>
  <ferc:CoolantsAndWater id="f-4" contextRef="c-2" unitRef="u-1" xsi:nil="true" />
  <link:footnoteLink xlink:role="http://www.xbrl.org/2003/role/link" xlink:type="extended">
    <link:footnote xlink:type="resource" xlink:label="fn-1" xml:lang="en"><div xmlns="http://www.w3.org/1999/xhtml">A note</div></link:footnote>
  </link:footnoteLink>
</xbrli:xbrl>
`

func TestParseXBRL(t *testing.T) {
	wb, err := Parse([]byte(smallXBRL))
	if err != nil {
		t.Fatal(err)
	}
	if wb.Format != "xbrl" || strings.Join(wb.SheetNames(), ",") != "facts,instance" {
		t.Fatalf("format %s, sheets %v", wb.Format, wb.SheetNames())
	}
	facts := wb.Sheet(XBRLFactsSheet)
	header := append(append([]string{}, XBRLFactColumns...), "ferc:PlantNameAxis", "ferc:UtilityTypeAxis")
	for c, h := range header {
		if got := facts.Cell(1, c+1).Value; got != h {
			t.Errorf("header column %d: %q, want %q", c+1, got, h)
		}
	}
	col := func(name string) int {
		for i, h := range header {
			if h == name {
				return i + 1
			}
		}
		t.Fatalf("no column %s", name)
		return 0
	}
	cases := []struct {
		row  int
		want map[string]string
		kind map[string]Kind
	}{
		{2, map[string]string{"concept": "RespondentLegalName", "namespace": "http://ferc.gov/form/2022-01-01/ferc", "id": "f-1", "context": "c-1",
			"entity_scheme": "http://www.ferc.gov/CID", "entity": "C001130", "period_start": "2021-01-01", "period_end": "2021-12-31",
			"period_instant": "", "unit": "", "value": "The Empire & District", "ferc:PlantNameAxis": ""}, map[string]Kind{"value": Text}},
		{3, map[string]string{"concept": "CostPerKilowattOfInstalledCapacity", "context": "c-2", "period_start": "", "period_instant": "2021-12-31",
			"unit": "iso4217:USD/utr:kW", "decimals": "4", "value": "840.2468", "ferc:PlantNameAxis": "Riverton (10-11-12)",
			"ferc:UtilityTypeAxis": "ferc:ElectricUtilityMember"}, map[string]Kind{"value": Number}},
		{4, map[string]string{"concept": "CostOfPlant", "unit": "iso4217:USD", "decimals": "0", "value": "252191666", "nil": ""}, nil},
		{5, map[string]string{"concept": "CoolantsAndWater", "unit": "iso4217:USD", "decimals": "", "nil": "true", "value": ""}, map[string]Kind{"value": Empty}},
	}
	if facts.NumRows() != 5 {
		t.Fatalf("%d rows, want 5", facts.NumRows())
	}
	for _, tc := range cases {
		for name, want := range tc.want {
			if got := facts.Cell(tc.row, col(name)).Value; got != want {
				t.Errorf("row %d %s: %q, want %q", tc.row, name, got, want)
			}
		}
		for name, want := range tc.kind {
			if got := facts.Cell(tc.row, col(name)).Kind; got != want {
				t.Errorf("row %d %s: kind %d, want %d", tc.row, name, got, want)
			}
		}
	}
	inst := wb.Sheet(XBRLInstanceSheet)
	got := map[string]string{}
	for r := 2; r <= inst.NumRows(); r++ {
		got[inst.Cell(r, 1).Value] = inst.Cell(r, 2).Value
	}
	for k, v := range map[string]string{"schemaRef": "https://eCollection.ferc.gov/taxonomy/form1/2022-01-01/form/form1/form-1_2022-01-01.xsd",
		"contexts": "2", "units": "2", "facts": "4", "footnoteLinks": "1"} {
		if got[k] != v {
			t.Errorf("instance %s = %q, want %q", k, got[k], v)
		}
	}
}

func TestParseXBRLRefuses(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"a fact of an undefined context", strings.Replace(smallXBRL, `contextRef="c-1"`, `contextRef="c-9"`, 1), "context \"c-9\""},
		{"a fact of an undefined unit", strings.Replace(smallXBRL, `unitRef="u-2"`, `unitRef="u-9"`, 1), "unit \"u-9\""},
		{"a context defined twice", strings.Replace(smallXBRL, `<xbrli:context id="c-2">`, `<xbrli:context id="c-1">`, 1), "defined twice"},
		{"a document cut short", smallXBRL[:len(smallXBRL)/2], "xbrl:"},
		{"another root", `<?xml version="1.0"?><xbrl xmlns="http://example.com/not-xbrl" xmlns:x="http://www.xbrl.org/2003/instance"/>`, "not xbrli:xbrl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wb, err := Parse([]byte(tc.doc))
			if err == nil || wb != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
	if Sniff([]byte("<html><body>xbrl</body></html>")) == "xbrl" {
		t.Error("an HTML page sniffed as XBRL")
	}
}
