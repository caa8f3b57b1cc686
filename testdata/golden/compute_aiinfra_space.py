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


# ---------------------------------------------------------------------------------------
# ai_infrastructure.construction: Census C30 workbooks, header row 4, months newest first
# from row 5 ("May-26p"); blank cells are unpublished values; pubsatime writes 0 for the
# detailed public types before 2002 ("not available"), which are not values.

MONTHS = {m: i + 1 for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}


def c30(fname):
    """Rows (header, period YYYY-MM, mark, value) of a C30 workbook, read with openpyxl."""
    import openpyxl
    ws = openpyxl.load_workbook(os.path.join(AI, "census_c30", fname), data_only=True).worksheets[0]
    head = [c.value for c in ws[4]]
    heads = [re.sub(r"([A-Za-z)])\d$", r"\1", " ".join(str(h).replace("_x000D_", " ").split())) if h else None for h in head]
    out = []
    release = None
    for row in ws.iter_rows(min_row=5, values_only=True):
        label = row[0]
        if label is None:
            continue
        m = re.match(r"^([A-Z][a-z]{2})-(\d{2})([pr]?)$", str(label))
        if not m:
            mm = re.match(r"^Source: U\.S\. Census Bureau, Construction Spending, (\w+) (\d+), (\d{4})", str(label))
            if mm:
                import datetime
                release = datetime.datetime.strptime(" ".join(mm.groups()), "%B %d %Y").strftime("%Y-%m-%d")
            continue
        yy = int(m.group(2))
        year = 1900 + yy if yy >= 50 else 2000 + yy
        period = "%d-%02d" % (year, MONTHS[m.group(1)])
        mark = {"p": "preliminary", "r": "revised", "": "not_marked"}[m.group(3)]
        for j in range(1, len(heads)):
            if heads[j] is None:
                continue
            v = row[j]
            if v == "" or v is None:
                continue
            if fname == "pubsatime.xlsx" and not heads[j].startswith("Total") and year < 2002 and v == 0:
                continue
            out.append((heads[j], period, mark, float(v)))
    return out, release


def construction():
    priv, rel1 = c30("privsatime.xlsx")
    pub, rel2 = c30("pubsatime.xlsx")
    as_of = max(rel1, rel2)
    cap = "ai_infrastructure.construction"
    cases = []

    def totals(vals):
        # No sum_value_musd: over values of several months, seasonally adjusted annual rates
        # are not added (the answer's total is null with a not_additive_over_time note,
        # checked by notes.json).
        return {"avg_value_musd": num(sum(vals) / len(vals)), "min_value_musd": num(min(vals)), "max_value_musd": num(max(vals)),
                "observation_count": len(vals), "source_record_count": len(vals)}

    for line, year in [("Data center", "2025"), ("Computer/ electronic/ electrical", "2025"), ("Data center", "2014")]:
        vals = [v for h, per, _, v in priv if h == line and per.startswith(year)]
        cases.append({"name": f"construction {line} {year}", "capability": cap, "as_of": as_of,
                      "params": {"filters": {"line": line}, "observation_date_from": year + "-01-01", "observation_date_to": year + "-12-31"},
                      "totals": totals(vals)})
    dc = [(per, mark, v) for h, per, mark, v in priv if h == "Data center"]
    marks = {}
    for _, mark, _ in dc:
        marks[mark] = marks.get(mark, 0) + 1
    cases.append({"name": "construction Data center every month by mark", "capability": cap, "as_of": as_of,
                  "params": {"filters": {"line": "Data center"}, "group_by": ["mark"]},
                  "totals": totals([v for _, _, v in dc]), "groups": {"source_record_count": marks}})
    # The sectors' totals in the latest month (level 0 lines).
    latest = max(per for _, per, _, _ in priv)
    tot = {"private": [v for h, per, _, v in priv if h == "Total Private Construction" and per == latest]}
    for h, sector in [("Total Public Construction", "public"), ("Total State and Local Construction", "state_and_local"), ("Total Federal Construction", "federal")]:
        tot[sector] = [v for hh, per, _, v in pub if hh == h and per == latest]
    cases.append({"name": "construction sector totals latest month", "capability": cap, "as_of": as_of,
                  "params": {"filters": {"level": 0}, "group_by": ["sector"], "observation_date_from": latest, "observation_date_to": latest},
                  "totals": {"observation_count": 4},
                  "groups": {"sum_value_musd": {k: num(v[0]) for k, v in tot.items()}}})
    # Every value of both workbooks.
    cases.append({"name": "construction every value", "capability": cap, "as_of": as_of, "params": {},
                  "totals": {"observation_count": len(priv) + len(pub), "source_record_count": len(priv) + len(pub)}})
    return cases


# ---------------------------------------------------------------------------------------
# robotics.adoption: NCSES ABS tables, converted CSVs (derived). Value cells are
# "['<value>', '<flag>']" (or plain numbers in 12515/12516); '&nbsp;' is an empty slot, 'D'
# in the value slot a withheld cell. A cell whose value slot is empty is not a row.

NCSES_YEARS = {"11547": "2021", "11548": "2021", "12515": "2021", "12516": "2021", "11305": "2021", "11306": "2021",
               "9029": "2020", "5704": "2016-18", "5705": "2016-18"}
DIMS = {"table_id", "row_id", "industry_full_path", "industry_level_1", "industry_level_2", "industry_level_3",
        "industry_level_4", "industry_level_5", "industry_hierarchy_depth", "field_naics_code", "employment_size_full_path",
        "employment_size_level_1", "employment_size_level_2", "employment_size_level_3", "employment_size_hierarchy_depth", "technology"}


def ncses_cells():
    """Every non-empty value cell: dict(table, row dims..., column, value or None, suppressed)."""
    import glob
    out = []
    for path in sorted(glob.glob(os.path.join(AI, "ncses_abs", "*.csv"))):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                for col, cell in row.items():
                    if col in DIMS:
                        continue
                    m = re.match(r"^\['([^']*)', '([^']*)'\]$", cell.strip())
                    val = m.group(1).strip() if m else cell.strip()
                    if val in ("", "&nbsp;"):
                        continue
                    rec = dict(row)
                    rec["column"] = col
                    rec["suppressed"] = val == "D"
                    rec["value"] = None if val == "D" else float(val.replace(",", ""))
                    out.append(rec)
    return out


def adoption():
    cells = ncses_cells()
    cap = "robotics.adoption"
    as_of = "2021-12-31"  # the latest data year's last day (tables of data year 2021)
    cases = []

    def counts(cs):
        return {"value_count": sum(1 for c in cs if c["value"] is not None), "suppressed_count": sum(1 for c in cs if c["suppressed"]),
                "source_record_count": len(cs)}

    by_year = {}
    for c in cells:
        by_year.setdefault(NCSES_YEARS[c["table_id"]], []).append(c)
    cases.append({"name": "adoption every cell by data year", "capability": cap, "as_of": as_of, "params": {"group_by": ["data_year"]},
                  "totals": counts(cells), "groups": {"suppressed_count": {y: counts(cs)["suppressed_count"] for y, cs in by_year.items()},
                                                      "source_record_count": {y: len(cs) for y, cs in by_year.items()}}})
    t5704 = [c for c in cells if c["table_id"] == "5704"]
    cases.append({"name": "adoption table 5704 suppression atoms", "capability": cap, "as_of": as_of, "params": {"filters": {"table_id": "5704"}},
                  "totals": counts(t5704)})
    # Semiconductor and other electronic components (NAICS 3344), robotics use in 2021, by answer.
    semi = [c for c in cells if c["table_id"] == "11547" and c.get("field_naics_code") == "3344" and c["column"] != "field_companies_number_"]
    labels = {"field_a_lot": "a lot", "field_somewhat": "somewhat", "field_a_little": "a little", "field_not_at_all": "not at all"}
    cases.append({"name": "adoption NAICS 3344 robotics use 2021 by response", "capability": cap, "as_of": as_of,
                  "params": {"filters": {"table_id": "11547", "naics_code": "3344", "measure": "percent_of_companies"}, "group_by": ["response"]},
                  "totals": counts(semi), "groups": {"avg_value": {labels[c["column"]]: num(c["value"]) for c in semi}}})
    # Number of companies in all industries / all companies, by table.
    tops = [c for c in cells if c["column"] == "field_companies_number_" and (c.get("industry_hierarchy_depth") == "1" or c.get("employment_size_hierarchy_depth") == "1")]
    cases.append({"name": "adoption companies at depth 1 by table", "capability": cap, "as_of": as_of,
                  "params": {"filters": {"measure": "companies_number", "hierarchy_depth": 1}, "group_by": ["table_id"]},
                  "totals": counts(tops), "groups": {"max_value": {c["table_id"]: num(c["value"]) for c in tops}}})
    # Share of manufacturing companies using each technology in 2021 (table 11305).
    manu = [c for c in cells if c["table_id"] == "11305" and c["column"] == "manufacturing_industries"]
    cases.append({"name": "adoption 11305 manufacturing by technology", "capability": cap, "as_of": as_of,
                  "params": {"filters": {"table_id": "11305", "industry": "Manufacturing industries"}, "group_by": ["technology"]},
                  # No total avg_value: 14 shares are not averaged (share_not_averaged, notes.json).
                  "totals": counts(manu),
                  "groups": {"avg_value": {c["technology"]: num(c["value"]) for c in manu}}})
    return cases


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "golden", "aiinfra_space.json")
    cases = production() + construction() + adoption()
    with open(out, "w") as f:
        f.write("[\n")
        f.write(",\n".join(" " + json.dumps(c) for c in cases))
        f.write("\n]\n")
    print(f"{len(cases)} cases written to {out}")


if __name__ == "__main__":
    main()
