#!/usr/bin/python3
"""Golden values for power.fuel_cost (eia923_fuel.json), read from the derived page-5 excerpt without any citeq code.

    /usr/bin/python3 testdata/golden/compute_eia923_fuel.py [RAW_DIR] [OUT]

RAW_DIR defaults to $CITEQ_RAW, else ../shared/data/raw; OUT to testdata/golden/eia923_fuel.json.
Input: RAW_DIR/eia/eia923_page5_derived/coal_receipts_2024_page5_EXCERPT.csv (29 January-2024
coal receipts of EIA-923 page 5, copied verbatim by a third party; header row 1 holds page 5's
32 headers). Reader: the standard library's csv module. Not run by the test suite;
api/golden_test.go posts each case to the REST API.

Rules applied, from EIA's page-5 layout: QUANTITY is in tons for coal; Average Heat Content is
MMBtu per unit of quantity; FUEL_COST is cents per MMBtu, and '.' marks a cost not published.
A receipt's heat is QUANTITY x Average Heat Content; its delivered cost, where FUEL_COST is
published, heat x FUEL_COST / 100 dollars. The average cost is the delivered cost over the heat
of the receipts whose cost is published.
"""
import csv
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "CITEQ_RAW", os.path.join(HERE, "..", "..", "..", "shared", "data", "raw"))
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "eia923_fuel.json")
SRC = os.path.join(RAW, "eia", "eia923_page5_derived", "coal_receipts_2024_page5_EXCERPT.csv")
CAP = "power.fuel_cost"
AS_OF = "2024-12-31"  # the excerpt's rows come from EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx

with open(SRC, newline="", encoding="utf-8") as fh:
    rows = list(csv.DictReader(fh))
assert len(rows) == 29, len(rows)
for r in rows:
    assert r["FUEL_GROUP"] == "Coal", r


def metrics(rs):
    heat = [float(r["QUANTITY"]) * float(r["Average Heat Content"]) for r in rs]
    cost = [(h, float(r["FUEL_COST"])) for h, r in zip(heat, rs) if r["FUEL_COST"] != "."]
    out = {"receipt_count": len(rs), "quantity": math.fsum(float(r["QUANTITY"]) for r in rs), "mmbtu": math.fsum(heat),
           "cost_published_count": len(cost)}
    if cost:
        dollars = math.fsum(h * c / 100 for h, c in cost)
        out["delivered_cost_usd"] = dollars
        out["average_cost_usd_per_mmbtu"] = dollars / math.fsum(h for h, _ in cost)
    return out, len(rs) - len(cost)


cases = []


def total(name, filters, where):
    m, withheld = metrics([r for r in rows if where(r)])
    cases.append({"name": name, "capability": CAP, "as_of": AS_OF, "params": {"filters": filters}, "totals": m,
                  "notes": {"fuel_cost_not_published": withheld}})


def grouped(name, by, column, keep):
    groups = {}
    for r in rows:
        groups.setdefault(r[column], []).append(r)
    per = {g: metrics(rs)[0] for g, rs in sorted(groups.items())}
    cases.append({"name": name, "capability": CAP, "as_of": AS_OF, "params": {"group_by": [by]},
                  "groups": {k: {g: m[k] for g, m in per.items() if k in m} for k in keep}})


total("all receipts of the excerpt", {}, lambda r: True)
total("regulated plants (cost published)", {"regulated": "REG"}, lambda r: r["Regulated"] == "REG")
total("unregulated plants (cost withheld)", {"regulated": "UNR"}, lambda r: r["Regulated"] == "UNR")
total("bituminous", {"energy_source_code": "BIT"}, lambda r: r["ENERGY_SOURCE"] == "BIT")
grouped("by plant state", "plant_state", "Plant State", ["receipt_count", "quantity", "mmbtu", "cost_published_count"])
grouped("by energy source", "energy_source_code", "ENERGY_SOURCE",
        ["receipt_count", "quantity", "average_cost_usd_per_mmbtu", "cost_published_count"])
grouped("by purchase type", "purchase_type", "Purchase Type", ["receipt_count", "quantity"])

with open(OUT, "w") as fh:
    fh.write("[\n")
    fh.write(",\n".join(" " + json.dumps(c) for c in cases))
    fh.write("\n]\n")
print("wrote %s: %d cases over %d receipts" % (OUT, len(cases), len(rows)), file=sys.stderr)
