#!/usr/bin/python3
"""Golden values for the wholesale and capacity market capabilities (markets.json).

Reads the raw workbooks with openpyxl only (no citeq code): ERCOT's DAMLZHBSPP_<year>.xlsx
and PJM's base residual auction results and planning-parameter workbooks. Usage:

    /usr/bin/python3 testdata/golden/compute_markets.py [RAW_DIR] [OUT]

RAW_DIR defaults to $CITEQ_RAW, else ../shared/data/raw; OUT to testdata/golden/markets.json.
"""
import datetime
import json
import os
import sys

import openpyxl

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "CITEQ_RAW", os.path.join(HERE, "..", "..", "..", "shared", "data", "raw"))
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "markets.json")


def ercot_rows(name):
    """Every data row of every month sheet: (date, hour_ending, flag, point, price, sheet)."""
    wb = openpyxl.load_workbook(os.path.join(RAW, "iso", "ercot", name), read_only=True)
    out = []
    for ws in wb.worksheets:
        rows = ws.iter_rows(values_only=True)
        header = next(rows, None)
        assert header is None or header[:5] == ("Delivery Date", "Hour Ending", "Repeated Hour Flag",
                                                "Settlement Point", "Settlement Point Price"), header
        for r in rows:
            if r[0] is None:
                continue
            m, d, y = (int(x) for x in r[0].split("/"))
            out.append((datetime.date(y, m, d), int(r[1][:2]), r[2], r[3], float(r[4]), ws.title))
    return out


def stats(vals):
    return {"avg_price": sum(vals) / len(vals), "min_price": min(vals), "max_price": max(vals),
            "hour_count": len(vals)}


def ercot_cases():
    cases = []
    for name, as_of in (("DAMLZHBSPP_2024.xlsx", "2024-12-31"), ("DAMLZHBSPP_2025_partial.xlsx", "2025-05-17")):
        rows = ercot_rows(name)
        year = as_of[:4]
        allp = [r[4] for r in rows]
        cases.append({"name": f"ercot {year} all hours", "capability": "power.price_ercot", "as_of": as_of,
                      "params": {}, "totals": {"hour_count": len(rows), "price_count": len(allp)}})
        by_point = {}
        for r in rows:
            by_point.setdefault(r[3], []).append(r[4])
        for metric in ("avg_price", "hour_count") if year == "2024" else ("hour_count",):
            cases.append({"name": f"ercot {year} {metric} by settlement point", "capability": "power.price_ercot",
                          "as_of": as_of, "params": {"group_by": ["settlement_point"]},
                          "groups": {metric: {p: stats(v)[metric] for p, v in sorted(by_point.items())}}})
        hn = [r[4] for r in rows if r[3] == "HB_NORTH"]
        cases.append({"name": f"ercot {year} HB_NORTH", "capability": "power.price_ercot", "as_of": as_of,
                      "params": {"filters": {"settlement_point": "HB_NORTH"}}, "totals": stats(hn)})
        # DST days: the spring-forward day has 23 hours per point, the fall-back day 25.
        for d in sorted({r[0] for r in rows}):
            n = sum(1 for r in rows if r[0] == d and r[3] == "HB_NORTH")
            if n != 24:
                day = [r for r in rows if r[0] == d]
                cases.append({"name": f"ercot {d} ({n} hours)", "capability": "power.price_ercot", "as_of": as_of,
                              "params": {"delivery_date_from": d.isoformat(), "delivery_date_to": d.isoformat(),
                                         "group_by": ["settlement_point"]},
                              "totals": {"hour_count": len(day)},
                              "groups": {"hour_count": {p: sum(1 for r in day if r[3] == p) for p in sorted(by_point)}}})
                flagged = [r[4] for r in day if r[2] == "Y"]
                if flagged:
                    cases.append({"name": f"ercot {d} repeated hour", "capability": "power.price_ercot", "as_of": as_of,
                                  "params": {"filters": {"repeated_hour_flag": "Y"}},
                                  "totals": stats(flagged)})
        if year == "2024":
            # On-peak: hours ending 7-22, Monday-Friday, except NERC holidays (observed).
            hol = {datetime.date(2024, 1, 1), datetime.date(2024, 5, 27), datetime.date(2024, 7, 4),
                   datetime.date(2024, 9, 2), datetime.date(2024, 11, 28), datetime.date(2024, 12, 25)}
            on = [r[4] for r in rows if r[3] == "HB_NORTH" and 7 <= r[1] <= 22 and r[0].weekday() < 5 and r[0] not in hol]
            off = [r[4] for r in rows if r[3] == "HB_NORTH" and not (7 <= r[1] <= 22 and r[0].weekday() < 5 and r[0] not in hol)]
            cases.append({"name": "ercot 2024 HB_NORTH by peak type", "capability": "power.price_ercot", "as_of": as_of,
                          "params": {"filters": {"settlement_point": "HB_NORTH"}, "group_by": ["peak_type"]},
                          "groups": {"avg_price": {"on_peak": sum(on) / len(on), "off_peak": sum(off) / len(off)},
                                     "hour_count": {"on_peak": len(on), "off_peak": len(off)}}})
            cases.append({"name": "ercot 2024 load zones July", "capability": "power.price_ercot", "as_of": as_of,
                          "params": {"filters": {"settlement_point_type": "load_zone", "month": "2024-07"}},
                          "totals": stats([r[4] for r in rows if r[3].startswith("LZ_") and r[0].month == 7])})
    return cases


def main():
    cases = ercot_cases()
    with open(OUT, "w") as f:
        f.write("[\n")
        f.write(",\n".join(" " + json.dumps(c) for c in cases))
        f.write("\n]\n")
    print(f"{len(cases)} cases written to {OUT}")


if __name__ == "__main__":
    main()
