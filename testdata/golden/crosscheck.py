#!/usr/bin/python3
"""Second, independent derivation of every number in eia.json.

Reads the raw workbooks with xlrd (Debian python3-xlrd 1.2.0; reads both .xls and .xlsx,
no Gnumeric involved), sums capacities exactly with decimal.Decimal, converts Excel serial
dates with xlrd.xldate_as_tuple, and compares with eia.json (relative tolerance 1e-9).

    /usr/bin/python3 testdata/golden/crosscheck.py     (CITEQ_RAW as for compute.sh)

Exit status 0 when every metric of every case agrees. Not run by the test suite.
"""
import datetime
import json
import os
import sys
from decimal import Decimal

import xlrd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RAW = os.environ.get("CITEQ_RAW", os.path.join(ROOT, "..", "shared", "data", "raw"))
EIA = os.path.join(RAW, "eia")

SHEETS = {"operating": "Operating", "planned": "Planned", "retired": "Retired",
          "canceled_or_postponed": "Canceled or Postponed"}


def isnull(v):
    return v is None or (isinstance(v, str) and v.strip() in ("", "."))


def dec(v):
    # repr of the double read from the file, as an exact decimal of what is displayed
    return Decimal(repr(float(v)))


def load_860m():
    book = xlrd.open_workbook(os.path.join(EIA, "eia860m", "may_generator2016.xlsx"))
    out = {}
    for lc, name in SHEETS.items():
        sh = book.sheet_by_name(name)
        header = [str(c).strip() for c in sh.row_values(1)]
        assert header[7] == "Nameplate Capacity (MW)" and header[8] == "Net Summer Capacity (MW)", header[:12]
        rows = []
        for r in range(2, sh.nrows):
            a = sh.cell(r, 0)
            if a.ctype != xlrd.XL_CELL_NUMBER:
                continue
            v = sh.row_values(r)
            rows.append({
                "plant": None if isnull(v[2]) else int(v[2]),
                "gen": str(v[6]),
                "state": v[5], "nameplate": None if isnull(v[7]) else dec(v[7]),
                "net": None if isnull(v[8]) else dec(v[8]),
                "technology": v[9], "energy_source_code": v[10], "prime_mover_code": v[11],
            })
        out[lc] = rows
    return out


def capacity_metrics(rows):
    m = {"generator_count": len(rows),
         "distinct_plant_count": len({r["plant"] for r in rows if r["plant"] is not None})}
    h = [r["nameplate"] for r in rows if r["nameplate"] is not None]
    s = [r["net"] for r in rows if r["net"] is not None]
    if h:
        m["nameplate_mw"] = sum(h)
    if s:
        m["net_summer_mw"] = sum(s)
    notes = {"plant_id_not_published": sum(1 for r in rows if r["plant"] is None)}
    return m, notes


def load_prices():
    series = {}
    book = xlrd.open_workbook(os.path.join(EIA, "ng_prices", "RNGWHHDd.xls"))
    sh = book.sheet_by_name("Data 1")
    assert sh.cell_value(1, 1) == "RNGWHHD"
    series["henry_hub_daily_spot"] = [
        (datetime.date(*xlrd.xldate_as_tuple(sh.cell_value(r, 0), book.datemode)[:3]),
         None if isnull(sh.cell_value(r, 1)) else float(sh.cell_value(r, 1)))
        for r in range(3, sh.nrows)]
    book = xlrd.open_workbook(os.path.join(EIA, "ng_prices", "NG_PRI_SUM_DCU_NUS_M.xls"))
    sh = book.sheet_by_name("Data 1")
    col = sh.row_values(1).index("N3045US3")
    obs = []
    for r in range(3, sh.nrows):
        d = datetime.date(*xlrd.xldate_as_tuple(sh.cell_value(r, 0), book.datemode)[:3])
        assert d.day == 15, d
        v = sh.cell_value(r, col)
        obs.append((d.replace(day=1), None if isnull(v) else float(v)))
    series["us_electric_power_monthly"] = obs
    return series


def henry_hub_csv(xls):
    path = os.path.join(EIA, "ng_prices", "Henry_Hub_Natural_Gas_Spot_Price_daily.csv")
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    assert lines[4].startswith("Day,")
    csv_obs = {}
    for line in lines[5:]:
        d, v = line.split(",")
        m, dd, y = (int(x) for x in d.split("/"))
        csv_obs[datetime.date(y, m, dd)] = None if v == "" else float(v)
    x = dict(xls)
    both = [d for d in csv_obs if d in x]
    diff = [d for d in both if csv_obs[d] != x[d]]
    print(f"henry hub csv: {len(csv_obs)} dates, {len(both)} also in xls, {len(diff)} value mismatches; "
          f"only in xls: {sorted(str(d) for d in set(x) - set(csv_obs))}")


def close(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return abs(float(a) - float(b)) <= 1e-9 * max(abs(float(a)), abs(float(b)), 1e-300)


def main():
    with open(os.path.join(HERE, "eia.json")) as f:
        cases = json.load(f)
    gen = load_860m()
    prices = load_prices()
    henry_hub_csv(prices["henry_hub_daily_spot"])
    bad = 0
    for c in cases:
        p = c["params"]
        flt = dict(p.get("filters", {}))
        if c["capability"] == "power.capacity":
            rows = gen[flt.pop("lifecycle")]
            for k, v in flt.items():
                rows = [r for r in rows if r[k] == v]
            if p.get("group_by"):
                assert p["group_by"] == ["state"]
                got = {}
                for st in sorted({r["state"] for r in rows}):
                    m, _ = capacity_metrics([r for r in rows if r["state"] == st])
                    for k in ("nameplate_mw", "net_summer_mw", "generator_count"):
                        if k in m:
                            got.setdefault(k, {})[st] = m[k]
                want = c["groups"]
                pairs = [((k, st), got[k].get(st), want[k].get(st)) for k in got for st in set(got[k]) | set(want[k])]
            else:
                m, notes = capacity_metrics(rows)
                want = dict(c["totals"], **{"notes." + k: v for k, v in c.get("notes", {}).items()})
                got = dict(m, **{"notes." + k: v for k, v in notes.items()})
                pairs = [(k, got.get(k), want.get(k)) for k in set(got) | set(want)]
        else:
            obs = prices[flt["atom"]]
            lo = datetime.date.fromisoformat(p.get("observation_date_from", "0001-01-01"))
            hi = datetime.date.fromisoformat(p.get("observation_date_to", "9999-12-31"))
            sel = [(d, v) for d, v in obs if lo <= d <= hi]
            vals = [v for _, v in sel if v is not None]
            got = {"avg_price": sum(vals) / len(vals), "min_price": min(vals), "max_price": max(vals),
                   "observation_count": len(vals)}
            print(f"{c['name']}: {len(sel)} dated rows, {len(vals)} non-null, "
                  f"exact average {sum(Decimal(repr(v)) for v in vals) / len(vals)}")
            pairs = [(k, got[k], c["totals"].get(k)) for k in got]
        for k, g, w in pairs:
            if g is None or w is None or not close(g, w):
                bad += 1
                print(f"MISMATCH {c['name']} {k}: recomputed {g} golden {w}")
        print(f"checked {c['name']}: {len(pairs)} values")
    print("all agree" if bad == 0 else f"{bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
