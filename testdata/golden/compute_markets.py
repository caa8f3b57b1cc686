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
import statistics
import sys
from fractions import Fraction

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


def percentile(vals, p):
    """The linear (type 7) percentile, in exact fractions: with h = (n-1)p/100 over the sorted
    values, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h])."""
    xs = sorted(Fraction(v) for v in vals)
    h = Fraction(len(xs) - 1) * Fraction(p) / 100
    j = int(h)
    if j >= len(xs) - 1:
        return float(xs[-1])
    return float(xs[j] + (h - j) * (xs[j + 1] - xs[j]))


def stats(vals):
    return {"avg_price": sum(vals) / len(vals), "min_price": min(vals), "max_price": max(vals),
            "hour_count": len(vals)}


def quantiles(vals):
    """statistics.median (the middle value, or the mean of the two middle ones) and the 10th
    and 90th percentiles."""
    return {"median_price": statistics.median(vals), "p10_price": percentile(vals, 10),
            "p90_price": percentile(vals, 90)}


def ercot_cases():
    cases = []
    for name, as_of in (("DAMLZHBSPP_2024.xlsx", "2024-12-31"), ("DAMLZHBSPP_2025_partial.xlsx", "2025-05-17")):
        rows = ercot_rows(name)
        year = as_of[:4]
        # The 2025-05-17 snapshot holds the 2024 workbook too (the years' documents complement
        # each other): the 2025 workbook's figures are asked for with the filter year 2025.
        scope = {"year": 2025} if year == "2025" else {}

        def params(filters=None, **rest):
            f = {**(filters or {}), **scope}
            return {**({"filters": f} if f else {}), **rest}
        allp = [r[4] for r in rows]
        cases.append({"name": f"ercot {year} all hours", "capability": "power.price_ercot", "as_of": as_of,
                      "params": params(), "totals": {"hour_count": len(rows), "price_count": len(allp)}})
        by_point = {}
        for r in rows:
            by_point.setdefault(r[3], []).append(r[4])
        for metric in ("avg_price", "hour_count") if year == "2024" else ("hour_count",):
            cases.append({"name": f"ercot {year} {metric} by settlement point", "capability": "power.price_ercot",
                          "as_of": as_of, "params": params(group_by=["settlement_point"]),
                          "groups": {metric: {p: stats(v)[metric] for p, v in sorted(by_point.items())}}})
        for metric in ("median_price", "p10_price", "p90_price"):
            cases.append({"name": f"ercot {year} {metric} by settlement point", "capability": "power.price_ercot",
                          "as_of": as_of, "params": params(group_by=["settlement_point"]),
                          "groups": {metric: {p: quantiles(v)[metric] for p, v in sorted(by_point.items())}}})
        cases.append({"name": f"ercot {year} all hours quantiles", "capability": "power.price_ercot", "as_of": as_of,
                      "params": params(), "totals": quantiles(allp)})
        hn = [r[4] for r in rows if r[3] == "HB_NORTH"]
        cases.append({"name": f"ercot {year} HB_NORTH", "capability": "power.price_ercot", "as_of": as_of,
                      "params": params({"settlement_point": "HB_NORTH"}), "totals": {**stats(hn), **quantiles(hn)}})
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


def pjm_block(ws_rows, start):
    """LDA rows from start (0-based) until column A is blank or a footnote: [(lda, cells)]."""
    out = []
    for r in ws_rows[start:]:
        a = r[0] if r else None
        if a is None or not str(a).strip() or str(a).strip().startswith("*"):
            break
        out.append((str(a).replace("*", "").strip(), r))
    return out


def pjm_cases():
    rpm = os.path.join(RAW, "iso", "pjm", "rpm")
    price, cleared, price_count, rr, rr_frr, collar = {}, {}, 0, {}, {}, {}
    for name in sorted(os.listdir(rpm)):
        wb = openpyxl.load_workbook(os.path.join(rpm, name), read_only=True, data_only=True)
        dy = name[:4] + "/" + name[5:9]
        if "results" in name:
            rows = list(wb["Summary"].iter_rows(values_only=True))
            labels = [str(r[0]).strip() if r and r[0] is not None else "" for r in rows]
            if "LDA/External Source Zone" in labels:  # 2021/2022: MW and price on one row
                block = pjm_block(rows, labels.index("LDA/External Source Zone") + 1)
                prices = {l: r[2] for l, r in block}
                mws = {l: r[1] for l, r in block}
            else:
                block = pjm_block(rows, labels.index("Resource Clearing Prices [$/MW-day]") + 2)
                prices = {l: r[1] for l, r in block}
                i = labels.index("Participant Buy Bids/Sell Offers Cleared [Equivalent Annual Resources in MW]") + 2
                if not labels[i]:
                    i += 1
                mws = {l: r[1] for l, r in pjm_block(rows, i)}
            price[dy], cleared[dy] = prices["RTO"], mws["RTO"]
            price_count += len(prices)
        else:
            ws = wb.worksheets[0]
            rows = list(ws.iter_rows(values_only=True))
            for r in rows:
                a = str(r[0]).strip() if r and r[0] is not None else ""
                if a == "Reliability Requirement":
                    rr[dy] = r[1]
                elif a == "Reliability Requirement adjusted for FRR":
                    rr_frr[dy] = r[1]
                elif a in ("Price Cap ($/MW-ICAP)", "Price Floor ($/MW-ICAP)"):
                    collar.setdefault(a, {})[dy] = r[1]
    cases = []
    as_of = "2026-03-20"
    for atom, vals in (("clearing_price", price), ("cleared_mw", cleared), ("reliability_requirement", rr),
                       ("reliability_requirement_adjusted_for_frr", rr_frr)):
        cases.append({"name": f"pjm RTO {atom} by delivery year", "capability": "power.capacity_market_pjm", "as_of": as_of,
                      "params": {"filters": {"atom_type": atom, "lda": "RTO"}, "group_by": ["delivery_year"]},
                      "groups": {"value": vals}})
    for label, atom in (("Price Cap ($/MW-ICAP)", "price_cap"), ("Price Floor ($/MW-ICAP)", "price_floor")):
        vals = collar[label]
        cases.append({"name": f"pjm {atom} by delivery year", "capability": "power.capacity_market_pjm", "as_of": as_of,
                      "params": {"filters": {"atom_type": atom}, "group_by": ["delivery_year"]},
                      "totals": {"atom_count": len(vals)}, "groups": {"value": vals}})
    cases.append({"name": "pjm clearing prices printed", "capability": "power.capacity_market_pjm", "as_of": as_of,
                  "params": {"filters": {"atom_type": "clearing_price"}},
                  "totals": {"atom_count": price_count}})
    return cases


def main():
    cases = ercot_cases() + pjm_cases()
    with open(OUT, "w") as f:
        f.write("[\n")
        f.write(",\n".join(" " + json.dumps(c) for c in cases))
        f.write("\n]\n")
    print(f"{len(cases)} cases written to {OUT}")


if __name__ == "__main__":
    main()
