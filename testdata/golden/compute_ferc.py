#!/usr/bin/python3
"""Golden values for power.plant_costs (ferc.json), read from the FERC Form 1 filings without any citeq code.

    /usr/bin/python3 testdata/golden/compute_ferc.py [RAW_DIR] [OUT]

RAW_DIR defaults to $CITEQ_RAW, else ../shared/data/raw; OUT to testdata/golden/ferc.json.
Input: RAW_DIR/ferc/form1_xbrl/*.xbrl, the respondents' XBRL instance documents as filed
(AEP Generating 2023, Evergy Kansas Central 2023, SIGECO 2021 original and refiling).
Reader: xml.etree.ElementTree from the standard library (ferc_xbrl.py, shared with the
fixtures' script). Not run by the test suite; api/golden_test.go posts each case to the REST API.

Rules applied, as ferc/LAYOUT.md and the schedule state them:
- A schedule 402 fact is a fact in the FERC namespace whose context has exactly the dimension
  PlantNameAxis (plant lines) or PlantNameAxis and FuelKindAxis (fuel lines, the nine fuel
  concepts), and whose period ends on the last day of the filing's ReportYear.
- Units are resolved through each file's own xbrli:unit elements (ids differ per file) and
  written by the measures' local names (USD, kWh, USD/kW, ...).
- Of a respondent's filings of one ReportYear the one with the latest AttestationDate is
  served (SIGECO's 2022-10 refiling supersedes its 2022-04 original).
- A fact repeated with the same key (respondent, year, plant, fuel kind, concept) counts once.
- plant_entry, read from the plant name: no letter -> placeholder; the word total(s) ->
  filer_total; else plant.
"""
import json
import math
import os
import re
import sys

from ferc_xbrl import FERC, FUEL, latest_filings, read

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "CITEQ_RAW", os.path.join(HERE, "..", "..", "..", "shared", "data", "raw"))
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "ferc.json")
SRC = os.path.join(RAW, "ferc", "form1_xbrl")
CAP = "power.plant_costs"


def entry(name):
    if not re.search(r"[^\W\d_]", name):
        return "placeholder"
    if re.search(r"(?i)\btotals?\b", name):
        return "filer_total"
    return "plant"


filings = [read(os.path.join(SRC, n)) for n in sorted(os.listdir(SRC)) if n.endswith(".xbrl")]
latest = latest_filings(filings)
as_of = max(f["cover"]["AttestationDate"] for f in latest.values())

rows = []  # one dict per served fact
for f in filings:
    if latest[(f["entity"], f["cover"]["ReportYear"])] is not f:
        continue
    year = int(f["cover"]["ReportYear"])
    seen = set()
    for e in f["facts"]:
        m = FERC.match(e.tag)
        entity, dims, end = f["contexts"][e.get("contextRef")]
        if not m or "PlantNameAxis" not in dims or set(dims) - {"PlantNameAxis", "FuelKindAxis"}:
            continue
        concept = m.group(1)
        if (concept in FUEL) != ("FuelKindAxis" in dims) or end != "%d-12-31" % year:
            continue
        plant = dims["PlantNameAxis"].strip()
        key = (entity, year, plant, dims.get("FuelKindAxis", "").strip(), concept)
        if key in seen:
            continue
        seen.add(key)
        value = None
        text = (e.text or "").strip()
        if text:
            try:
                value = float(text)
            except ValueError:
                pass
        rows.append({"respondent_id": entity, "report_year": year, "plant_name": plant, "fuel_kind": key[3] or None,
                     "concept": concept, "unit": f["units"].get(e.get("unitRef")), "value": value,
                     "submission_type": f["cover"].get("SubmissionType"), "plant_entry": entry(plant), "file": f["name"]})


def match(filters):
    return [r for r in rows if all(r[k] == v for k, v in filters.items())]


def metrics(rs):
    vals = [r["value"] for r in rs if r["value"] is not None]
    units = {r["unit"] for r in rs if r["value"] is not None}
    out = {"fact_count": len(rs), "numeric_fact_count": len(vals),
           "respondent_count": len({r["respondent_id"] for r in rs}),
           "distinct_plant_count": len({(r["respondent_id"], r["plant_name"]) for r in rs})}
    if vals and len(units) == 1:
        out["value_sum"] = math.fsum(vals)
        out["value_min"] = min(vals)
        out["value_max"] = max(vals)
    return out


cases = []


def total(name, filters, keep):
    m = metrics(match(filters))
    cases.append({"name": name, "capability": CAP, "as_of": as_of, "params": {"filters": filters},
                  "totals": {k: m[k] for k in keep}})


def grouped(name, filters, by, keep):
    groups = {}
    for r in match(filters):
        groups.setdefault(str(r[by]), []).append(r)
    per = {g: metrics(rs) for g, rs in sorted(groups.items())}
    cases.append({"name": name, "capability": CAP, "as_of": as_of, "params": {"filters": filters, "group_by": [by]},
                  "groups": {k: {g: m[k] for g, m in per.items()} for k in keep}})


NETGEN = "NetGenerationExcludingPlantUse"
grouped("SIGECO 2021 net generation by plant (the refiling's)", {"respondent_id": "C001009", "concept": NETGEN}, "plant_name",
        ["value_sum"])
total("F.B. Culley Station net generation (refiling 2,118,170,000 kWh, not the original's 12,063,170,000)",
      {"respondent_id": "C001009", "plant_name": "F.B. Culley Station", "concept": NETGEN}, ["value_sum", "fact_count"])
grouped("net generation of plant entries by respondent", {"concept": NETGEN, "plant_entry": "plant"}, "respondent_id",
        ["value_sum", "distinct_plant_count"])
grouped("net generation by plant_entry", {"concept": NETGEN}, "plant_entry", ["value_sum", "fact_count"])
total("installed capacity of plant entries", {"concept": "InstalledCapacityOfPlant", "plant_entry": "plant"},
      ["value_sum", "value_max", "fact_count", "respondent_count", "distinct_plant_count"])
grouped("cost of plant of plant entries by respondent", {"concept": "CostOfPlant", "plant_entry": "plant"}, "respondent_id",
        ["value_sum", "value_min", "value_max"])
grouped("fuel expense (line 20) of plant entries by respondent", {"concept": "FuelSteamPowerGeneration", "plant_entry": "plant"},
        "respondent_id", ["value_sum"])
grouped("coal burned by unit", {"concept": "QuantityOfFuelBurned", "fuel_kind": "Coal"}, "unit", ["value_sum", "fact_count"])
grouped("facts by respondent", {}, "respondent_id", ["fact_count", "numeric_fact_count", "distinct_plant_count"])
grouped("facts by submission type", {}, "submission_type", ["fact_count"])
grouped("facts by concept", {}, "concept", ["fact_count"])

with open(OUT, "w") as fh:
    fh.write("[\n")
    fh.write(",\n".join(" " + json.dumps(c, sort_keys=False) for c in cases))
    fh.write("\n]\n")
print("wrote %s: %d cases, %d facts served, as_of %s" % (OUT, len(cases), len(rows), as_of), file=sys.stderr)
