#!/usr/bin/python3
"""Re-derives testdata/golden/aiinfra_space.json from the raw files, without any citeq code.

    /usr/bin/python3 testdata/golden/compute_aiinfra_space.py [OUTPUT]

Reads $CITEQ_RAW (default ../shared/data/raw beside the repository) with the standard csv
module and openpyxl only. Not run by the test suite; it documents how every golden number
of the AI-infrastructure, robotics and space capabilities was obtained.
"""
import csv
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RAW = os.environ.get("CITEQ_RAW") or os.path.join(ROOT, "..", "shared", "data", "raw")
AI = os.path.join(RAW, "aiinfra_robotics")


def num(x):
    """A JSON number: integers as integers, other values at full precision."""
    if isinstance(x, float) and x == int(x) and abs(x) < 1e15:
        return int(x)
    return x


# ---------------------------------------------------------------------------------------
# ai_infrastructure.production: FRED CSV downloads, header observation_date,<SERIES_ID>.

FRED_UNITS = {"IPG3344S": "index", "IPG3344SQ": "index", "CAPG3344S": "cap", "CAPUTLG3344S": "util"}


def fred(series):
    rows = []
    with open(os.path.join(AI, "fred_g17", series + ".csv"), newline="") as f:
        r = csv.reader(f)
        head = next(r)
        assert head == ["observation_date", series], head
        for date, value in r:
            rows.append((date, float(value)))
    return rows


def period(series, date):
    """YYYY-MM, or YYYY-Qn for the quarterly series."""
    if series.endswith("Q"):
        return "%s-Q%d" % (date[:4], (int(date[5:7]) + 2) // 3)
    return date[:7]


def stats(values):
    return {"avg_value": sum(values) / len(values), "min_value": min(values), "max_value": max(values),
            "observation_count": len(values), "source_record_count": len(values)}


def production():
    data = {s: fred(s) for s in FRED_UNITS}
    last = {s: max(d for d, _ in rows) for s, rows in data.items()}
    as_of = max(last.values())
    vintage = {s: "observations through " + period(s, last[s]) for s in data}
    # IPG3344S 2025 and IPG3344SQ 2025 are read from files whose last periods differ
    # (2026-05 and 2026-Q1): two vintage labels.
    cases = []
    for series, year in [("CAPUTLG3344S", "2025"), ("IPG3344S", "2024"), ("CAPG3344S", "2000")]:
        vals = [v for d, v in data[series] if d.startswith(year)]
        t = stats(vals)
        t["vintage_count"] = 1
        cases.append({"name": f"production {series} {year}", "capability": "ai_infrastructure.production", "as_of": as_of,
                      "params": {"filters": {"series_id": series}, "observation_date_from": year + "-01-01", "observation_date_to": year + "-12-31"},
                      "totals": {k: num(v) for k, v in t.items()}})
    # Every row, by series: counts; and the number of vintages over all rows.
    allrows = sum(len(r) for r in data.values())
    cases.append({"name": "production rows by series", "capability": "ai_infrastructure.production", "as_of": as_of,
                  "params": {"group_by": ["series_id"]},
                  "totals": {"observation_count": allrows, "source_record_count": allrows, "vintage_count": len(set(vintage.values()))},
                  "groups": {"observation_count": {s: len(r) for s, r in data.items()}}})
    # Industrial production in 2025 by frequency: monthly and quarterly index.
    vals = {}
    for s in ("IPG3344S", "IPG3344SQ"):
        vals[s] = [v for d, v in data[s] if d.startswith("2025")]
    cases.append({"name": "production index 2025 by frequency", "capability": "ai_infrastructure.production", "as_of": as_of,
                  "params": {"filters": {"measure": "industrial_production"}, "group_by": ["frequency"], "observation_date_from": "2025-01-01", "observation_date_to": "2025-12-31"},
                  "totals": {"avg_value": num(sum(vals["IPG3344S"] + vals["IPG3344SQ"]) / 16), "observation_count": 16, "vintage_count": len({vintage["IPG3344S"], vintage["IPG3344SQ"]})},
                  "groups": {"avg_value": {"monthly": num(sum(vals["IPG3344S"]) / 12), "quarterly": num(sum(vals["IPG3344SQ"]) / 4)}}})
    # Capacity utilization and capacity together: two vintages, units mixed (no avg).
    n = len([1 for s in ("CAPG3344S", "CAPUTLG3344S") for d, _ in data[s] if d.startswith("2026")])
    cases.append({"name": "production 2026 capacity and utilization mix vintages", "capability": "ai_infrastructure.production", "as_of": as_of,
                  "params": {"filters": {"series_id": ["CAPG3344S", "CAPUTLG3344S"]}, "observation_date_from": "2026-01-01", "observation_date_to": "2026-12-31"},
                  "totals": {"observation_count": n, "vintage_count": len({vintage["CAPG3344S"], vintage["CAPUTLG3344S"]})}})
    return cases


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "golden", "aiinfra_space.json")
    cases = production()
    with open(out, "w") as f:
        f.write("[\n")
        f.write(",\n".join(" " + json.dumps(c) for c in cases))
        f.write("\n]\n")
    print(f"{len(cases)} cases written to {out}")


if __name__ == "__main__":
    main()
