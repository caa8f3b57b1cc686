#!/usr/bin/python3
"""Writes testdata/golden/eia_parts.json: power.retail_sales in one state by published part
(A bundled, B energy only, C delivery only, D retail marketer), read straight from the raw
EIA-861 workbook without any citeq code.

    /usr/bin/python3 testdata/golden/compute_eia_parts.py [OUTPUT]

Reader: the standard library only (zipfile and re over the workbook's XML: shared strings and
the States sheet), so it runs where no spreadsheet module is installed. Sums use math.fsum.
Columns of sheet States: A Data Year, D Part, G State, H Ownership, V TOTAL revenue (thousand
USD), W TOTAL sales (MWh), X TOTAL customers; data rows are those whose column A is an integer
(row 4 on; the footnote row is text). The workbook's footnote: to get state totals, sum Parts
A, B, C and D for revenue but only Parts A, B and D for sales and customers, and leave Behind
the Meter respondents out of customers.
"""
import json
import math
import os
import re
import sys
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RAW = os.environ.get("CITEQ_RAW") or os.path.join(ROOT, "..", "shared", "data", "raw")
BOOK = os.path.join(RAW, "eia", "eia861", "Sales_Ult_Cust_2018.xlsx")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "golden", "eia_parts.json")
STATE = "CA"


def sheet_rows(z, name, strings):
    xml = z.read(name).decode("utf-8")
    for r in re.finditer(r'<row r="(\d+)"[^>]*>(.*?)</row>', xml, re.S):
        cells = {}
        for c in re.finditer(r'<c r="([A-Z]+)\d+"([^>]*?)(?:/>|>(.*?)</c>)', r.group(2), re.S):
            col, attrs, body = c.groups()
            v = re.search(r"<v>(.*?)</v>", body or "")
            t = re.search(r"<t[^>]*>(.*?)</t>", body or "")
            val = v.group(1) if v else (t.group(1) if t else "")
            if 't="s"' in attrs and v:
                val = strings[int(val)]
            cells[col] = val.replace("&amp;", "&")
        yield int(r.group(1)), cells


def num(v):
    v = (v or "").strip()
    return None if v in ("", ".") else float(v)


def clean(x):
    return int(x) if x == int(x) and abs(x) < 2**53 else x


def fsum(vals):
    vals = [v for v in vals if v is not None]
    return clean(math.fsum(vals)) if vals else None


z = zipfile.ZipFile(BOOK)
ss = z.read("xl/sharedStrings.xml").decode("utf-8")
strings = ["".join(re.findall(r"<t[^>]*>(.*?)</t>", si, re.S)) for si in re.findall(r"<si>(.*?)</si>", ss, re.S)]
lines = []
for n, c in sheet_rows(z, "xl/worksheets/sheet1.xml", strings):  # sheet1 = States
    if n >= 4 and c.get("A", "").isdigit() and c.get("G") == STATE:
        lines.append(c)

parts = sorted({c["D"] for c in lines})
counted = [c for c in lines if c["D"] != "C"]
cases = [
    {"name": "retail sales %s, every part" % STATE, "capability": "power.retail_sales", "as_of": "2018-12-31",
     "params": {"filters": {"state": STATE}},
     "totals": {
         "source_record_count": len(lines),
         "revenue_kusd": fsum(num(c.get("V")) for c in lines),
         "sales_mwh": fsum(num(c.get("W")) for c in counted),
         "customers": fsum(num(c.get("X")) for c in counted if c.get("H") != "Behind the Meter"),
     }},
    {"name": "retail sales %s by part" % STATE, "capability": "power.retail_sales", "as_of": "2018-12-31",
     "params": {"filters": {"state": STATE}, "group_by": ["part"]},
     "groups": {
         "source_record_count": {p: sum(1 for c in lines if c["D"] == p) for p in parts},
         "revenue_kusd": {p: fsum(num(c.get("V")) for c in lines if c["D"] == p) for p in parts},
     }},
]
for p in parts:
    rows = [c for c in lines if c["D"] == p]
    cases.append({"name": "retail sales %s part %s, published sales" % (STATE, p), "capability": "power.retail_sales", "as_of": "2018-12-31",
                  "params": {"filters": {"state": STATE, "part": p}},
                  "totals": {"source_record_count": len(rows), "revenue_kusd": fsum(num(c.get("V")) for c in rows)},
                  "published_sales_mwh": fsum(num(c.get("W")) for c in rows)})
with open(OUT, "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print("wrote %s: %s lines in %s, parts %s" % (OUT, len(lines), STATE, parts), file=sys.stderr)
