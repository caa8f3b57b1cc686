#!/usr/bin/python3
"""Re-derives testdata/golden/trade.json from the raw Census trade files, without any citeq code.

    /usr/bin/python3 testdata/golden/compute_trade.py [OUTPUT]

Reads $CITEQ_RAW (default ../shared/data/raw beside the repository) with the standard csv
module only:
  aiinfra_robotics/census_trade/usatradeonline_imports_hs4_china_2024-01_2026-03.csv
      (USA Trade Online "Standard Report - Imports": two title lines, then the header)
  aiinfra_robotics/census_trade_derived/census_api_imports_hs854232_gen_val_mo_by_country_2026-04_2026-06_EXCERPT.csv
      (a third party's transcription of the Census API's answers for HS 854232 by country)
Not run by the test suite; it documents how every golden number of ai_infrastructure.trade
and ai_infrastructure.equipment_trade was obtained. Checks of the files' own arithmetic (the
transcription's countries add up to its total line; the figures LAYOUT.md quotes) are asserted
and printed to stderr.
"""
import csv
import datetime
import json
import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RAW = os.environ.get("CITEQ_RAW") or os.path.join(ROOT, "..", "shared", "data", "raw")
AI = os.path.join(RAW, "aiinfra_robotics")
EXPORT = os.path.join(AI, "census_trade", "usatradeonline_imports_hs4_china_2024-01_2026-03.csv")
EXCERPT = os.path.join(AI, "census_trade_derived",
                       "census_api_imports_hs854232_gen_val_mo_by_country_2026-04_2026-06_EXCERPT.csv")


def export_lines():
    """(code, country, YYYY-MM, dollars) for every data line, and the export's date."""
    with open(EXPORT, newline="") as f:
        r = csv.reader(f)
        title = next(r)
        assert title == ["Standard Report - Imports"], title
        current = next(r)[0]
        assert current.startswith("Current date: "), current
        date = datetime.datetime.strptime(current.split()[2], "%m/%d/%Y").strftime("%Y-%m-%d")
        head = next(r)
        assert head == ["Commodity", "Country", "Time", "Customs Value (Gen) ($US)", ""], head
        out = []
        for row in r:
            assert len(row) == 4, row
            code, _ = row[0].split(" ", 1)
            month = datetime.datetime.strptime(row[2], "%B %Y").strftime("%Y-%m")
            out.append((code, row[1], month, int(row[3].replace(",", ""))))
    return date, out


def excerpt_lines():
    """(YYYY-MM, CTY_CODE, CTY_NAME, dollars) for every line of the transcription."""
    with open(EXCERPT, newline="") as f:
        r = csv.reader(f)
        head = next(r)
        assert head == ["period", "source", "metric", "value", "value_wda", "meta"], head
        out = []
        for period, source, metric, value, wda, meta in r:
            assert source == "census" and wda == "" and metric.startswith("us_imports_memory_value:"), (source, metric, wda)
            out.append((period, metric.split(":", 1)[1], meta, int(value)))
    return out


def kind(code):
    if code == "-":
        return "all_countries_total"
    if code.startswith("00"):
        return "country_grouping"
    if code.endswith("XXX"):
        return "continent"
    return "country"


def case(name, cap, as_of, params, totals, groups=None):
    c = {"name": name, "capability": cap, "as_of": as_of, "params": params, "totals": totals}
    if groups:
        c["groups"] = groups
    return c


def main():
    cases = []
    as_of, lines = export_lines()
    print("export: %d data lines, Current date %s" % (len(lines), as_of), file=sys.stderr)
    month_total = defaultdict(int)
    for code, _, month, v in lines:
        month_total[month] += v
    # LAYOUT.md: the column sum per month is total general imports from China.
    assert month_total["2024-01"] == 35782600942 and month_total["2026-03"] == 20859034011, month_total
    assert {c for _, c, _, _ in lines} == {"China"}
    val = {(code, month): v for code, _, month, v in lines}
    assert len(val) == len(lines)

    def months(code, prefix=""):
        return {m: v for (c, m), v in val.items() if c == code and m.startswith(prefix)}

    for code in ("8541", "8542", "8486"):
        assert len(months(code)) == 27, code
    chip = "ai_infrastructure.trade"
    equip = "ai_infrastructure.equipment_trade"
    for code, month in [("8542", "2024-01"), ("8542", "2026-03"), ("8541", "2024-01")]:
        cases.append(case(f"export {code} from China {month}", chip, as_of,
                          {"filters": {"commodity": code, "period": month}},
                          {"general_imports_usd": val[(code, month)], "source_record_count": 1}))
    for code in ("8541", "8542"):
        m = months(code, "2024")
        cases.append(case(f"export {code} from China 2024", chip, as_of,
                          {"filters": {"commodity": code}, "observation_date_from": "2024-01-01", "observation_date_to": "2024-12-31"},
                          {"general_imports_usd": sum(m.values()), "source_record_count": len(m)}))
    by_code = {c: sum(months(c).values()) for c in ("8541", "8542")}
    cases.append(case("export chips by commodity", chip, as_of, {"group_by": ["commodity"]},
                      {"general_imports_usd": sum(by_code.values()), "source_record_count": 54},
                      {"general_imports_usd": by_code, "source_record_count": {c: len(months(c)) for c in by_code}}))
    by_year = defaultdict(int)
    for m, v in months("8542").items():
        by_year[m[:4]] += v
    cases.append(case("export 8542 by year", chip, as_of, {"filters": {"commodity": "8542"}, "group_by": ["year"]},
                      {"general_imports_usd": sum(by_year.values())}, {"general_imports_usd": dict(by_year)}))
    for month in ("2024-01", "2026-03"):
        cases.append(case(f"export 8486 from China {month}", equip, as_of, {"filters": {"period": month}},
                          {"general_imports_usd": val[("8486", month)], "source_record_count": 1}))
    m = months("8486", "2025")
    cases.append(case("export 8486 from China 2025", equip, as_of, {"filters": {"year": 2025}},
                      {"general_imports_usd": sum(m.values()), "source_record_count": len(m)}))
    cases.append(case("export 8486 all months", equip, as_of, {},
                      {"general_imports_usd": sum(months("8486").values()), "source_record_count": 27}))

    ex = excerpt_lines()
    ex_as_of = max(p for p, _, _, _ in ex) + "-01"
    # The snapshot of the transcription's date holds the export too (the documents complement
    # each other): the transcription's cases ask for its form.
    form = {"source_form": "api_excerpt"}
    print("transcription: %d lines, as_of %s" % (len(ex), ex_as_of), file=sys.stderr)
    for period in ("2026-04", "2026-06"):
        rows = [(c, n, v) for p, c, n, v in ex if p == period]
        countries = sum(v for c, _, v in rows if kind(c) == "country")
        total = [v for c, _, v in rows if c == "-"]
        assert total == [countries], (period, total, countries)
        print("  %s: %d lines, %d countries, countries sum to the total line %d" % (
            period, len(rows), sum(1 for c, _, _ in rows if kind(c) == "country"), countries), file=sys.stderr)
        cases.append(case(f"transcription 854232 countries {period}", chip, ex_as_of,
                          {"filters": {**form, "country_kind": "country", "period": period}},
                          {"general_imports_usd": countries, "source_record_count": sum(1 for c, _, _ in rows if kind(c) == "country")}))
    named = {(p, n): v for p, _, n, v in ex}
    for country, period in [("TAIWAN", "2026-04"), ("TAIWAN", "2026-06"), ("KOREA, SOUTH", "2026-06"), ("CHINA", "2026-04")]:
        cases.append(case(f"transcription 854232 from {country} {period}", chip, ex_as_of,
                          {"filters": {**form, "country_name": country, "period": period}},
                          {"general_imports_usd": named[(period, country)], "source_record_count": 1}))
    kinds_v, kinds_n = defaultdict(int), defaultdict(int)
    for _, c, _, v in ex:
        kinds_v[kind(c)] += v
        kinds_n[kind(c)] += 1
    cases.append(case("transcription by country_kind", chip, ex_as_of, {"filters": form, "group_by": ["country_kind"]},
                      {"source_record_count": len(ex)},
                      {"general_imports_usd": dict(kinds_v), "source_record_count": dict(kinds_n)}))
    by_period = defaultdict(int)
    for p, c, _, v in ex:
        if kind(c) == "country":
            by_period[p] += v
    cases.append(case("transcription countries by period", chip, ex_as_of,
                      {"filters": {**form, "country_kind": "country"}, "group_by": ["period"]},
                      {"general_imports_usd": sum(by_period.values())}, {"general_imports_usd": dict(by_period)}))

    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "golden", "trade.json")
    with open(out, "w") as f:
        f.write("[\n" + ",\n".join(" " + json.dumps(c) for c in cases) + "\n]\n")
    print("wrote %s (%d cases)" % (out, len(cases)), file=sys.stderr)


if __name__ == "__main__":
    main()
