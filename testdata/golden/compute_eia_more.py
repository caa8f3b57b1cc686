#!/usr/bin/python3
"""Re-derives testdata/golden/eia_more.json from the raw EIA files, without any citeq code.

    /usr/bin/python3 testdata/golden/compute_eia_more.py [OUTPUT]

Input: $CITEQ_RAW/eia/... (CITEQ_RAW defaults to ../shared/data/raw relative to the repo root).
Readers: openpyxl (xlsx), xlrd (xls), csv and json from the standard library (Debian bookworm
python3-openpyxl 3.0.9, python3-xlrd 1.2.0). Sums use math.fsum. Not run by the test suite.
"""
import collections
import csv
import datetime
import json
import math
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RAW = os.environ.get("CITEQ_RAW") or os.path.join(ROOT, "..", "shared", "data", "raw")
EIA = os.path.join(RAW, "eia")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "golden", "eia_more.json")

cases = []


def num(v):
    """A cell value as a float, None for the agency's blanks ('.', ' ', '')."""
    if v is None:
        return None
    if isinstance(v, str):
        v = v.strip()
        if v in ("", "."):
            return None
        return float(v)
    return float(v)


def clean(x):
    if isinstance(x, float) and x == int(x) and abs(x) < 2**53:
        return int(x)
    return x


def fsum(vals):
    vals = [v for v in vals if v is not None]
    return math.fsum(vals) if vals else None


def case(name, cap, as_of, params, totals=None, groups=None, notes=None):
    c = {"name": name, "capability": cap, "as_of": as_of, "params": params}
    if totals:
        c["totals"] = {k: clean(v) for k, v in totals.items() if v is not None}
    if groups:
        c["groups"] = {m: {g: clean(v) for g, v in byg.items() if v is not None} for m, byg in groups.items()}
    if notes:
        c["notes"] = notes
    cases.append(c)


# ---------------------------------------------------------------------------------------
# power.retail_sales: eia861/Sales_Ult_Cust_2018.xlsx, sheets States and Territories.
# Data rows: a numeric Utility Number (column B). Columns J-X: 5 sectors x (revenue, sales,
# customers). Sales and customers count Parts A, B, D only (the workbook's note); customers
# leave out 'Behind the Meter'. Revenue counts every part.
# EIA's published 2018 totals (Electric Power Monthly Table 5.1, thousand MWh):
# residential 1,469,093; commercial 1,381,755; industrial 1,000,673; transportation 7,665;
# all sectors 3,859,185. Checked below after rounding.
def retail_sales():
    import openpyxl
    wb = openpyxl.load_workbook(os.path.join(EIA, "eia861", "Sales_Ult_Cust_2018.xlsx"), read_only=True)
    sectors = ["residential", "commercial", "industrial", "transportation", "total"]
    lines = []
    for sheet, scope in (("States", "us_state_or_dc"), ("Territories", "us_territory")):
        for r in list(wb[sheet].iter_rows(values_only=True))[3:]:
            if not isinstance(r[1], (int, float)):
                continue
            d = {"scope": scope, "utility": r[1], "part": r[3], "state": r[6], "own": r[7], "ba": r[8]}
            for i, s in enumerate(sectors):
                d[s + "_rev"], d[s + "_sales"], d[s + "_cust"] = num(r[9 + 3 * i]), num(r[10 + 3 * i]), num(r[11 + 3 * i])
            lines.append(d)

    def metrics(rows):
        out = {}
        for s in sectors:
            p = "" if s == "total" else s + "_"
            rev = fsum(x[s + "_rev"] for x in rows)
            sales = fsum(x[s + "_sales"] for x in rows if x["part"] != "C")
            cust = fsum(x[s + "_cust"] for x in rows if x["part"] != "C" and x["own"] != "Behind the Meter")
            out[p + "revenue_kusd"], out[p + "sales_mwh"], out[p + "customers"] = rev, sales, cust
        out["source_record_count"] = len(rows)
        out["utility_count"] = len({x["utility"] for x in rows})
        return out

    us = [x for x in lines if x["scope"] == "us_state_or_dc"]
    t = metrics(us)
    published = {"residential_sales_mwh": 1469093, "commercial_sales_mwh": 1381755, "industrial_sales_mwh": 1000673,
                 "transportation_sales_mwh": 7665, "sales_mwh": 3859185}
    for k, v in published.items():
        got = round(t[k] / 1000)
        if got != v:
            sys.exit("retail sales %s: %d thousand MWh, EIA publishes %d" % (k, got, v))
    # Average price: revenue over counted sales (thousand USD per MWh = USD per kWh).
    t["average_price_usd_per_kwh"] = t["revenue_kusd"] / t["sales_mwh"]
    t["residential_average_price_usd_per_kwh"] = t["residential_revenue_kusd"] / t["residential_sales_mwh"]
    case("retail sales US 2018", "power.retail_sales", "2018-12-31", {"filters": {"region_scope": "us_state_or_dc"}}, totals=t)
    terr = metrics([x for x in lines if x["scope"] == "us_territory"])
    case("retail sales territories 2018", "power.retail_sales", "2018-12-31", {"filters": {"region_scope": "us_territory"}},
         totals={k: terr[k] for k in ("revenue_kusd", "sales_mwh", "customers", "source_record_count")})
    by_state = collections.defaultdict(list)
    for x in us:
        by_state[x["state"]].append(x)
    case("retail sales by state", "power.retail_sales", "2018-12-31", {"filters": {"region_scope": "us_state_or_dc"}, "group_by": ["state"]},
         groups={"sales_mwh": {s: metrics(v)["sales_mwh"] for s, v in by_state.items()},
                 "revenue_kusd": {s: metrics(v)["revenue_kusd"] for s, v in by_state.items()}})
    by_part = collections.defaultdict(list)
    for x in lines:
        by_part[x["part"]].append(x)
    case("retail sales revenue by part", "power.retail_sales", "2018-12-31", {"group_by": ["part"]},
         groups={"revenue_kusd": {p: metrics(v)["revenue_kusd"] for p, v in by_part.items()}})
    tx = [x for x in us if x["state"] == "TX"]
    m = metrics(tx)
    m["average_price_usd_per_kwh"] = m["revenue_kusd"] / m["sales_mwh"]
    case("retail sales Texas", "power.retail_sales", "2018-12-31", {"filters": {"state": "TX"}},
         totals={k: m[k] for k in ("revenue_kusd", "sales_mwh", "customers", "average_price_usd_per_kwh", "source_record_count")})


# ---------------------------------------------------------------------------------------
# power.asset_ownership: eia860/4___Owner_Y2024.xlsx, sheet Ownership, header row 2, data
# rows = a numeric Utility ID in column A. Percent Owned (column N) is a fraction; ' ' = null.
def asset_ownership():
    import openpyxl
    wb = openpyxl.load_workbook(os.path.join(EIA, "eia860", "4___Owner_Y2024.xlsx"), read_only=True)
    lines = []
    for r in list(wb["Ownership"].iter_rows(values_only=True))[2:]:
        if not isinstance(r[0], (int, float)):
            continue
        lines.append({"plant": r[2], "state": r[4], "gen": str(r[5]), "status": r[6], "owner_name": r[7], "owner": r[12], "share": num(r[13])})

    def metrics(rows):
        shares = [x["share"] for x in rows if x["share"] is not None]
        return {
            "ownership_line_count": len(rows),
            "distinct_generator_count": len({(x["plant"], x["gen"]) for x in rows}),
            "distinct_plant_count": len({x["plant"] for x in rows}),
            "distinct_owner_count": len({x["owner"] for x in rows}),
            "fraction_owned_sum": fsum(shares),
            "fraction_owned_avg": fsum(shares) / len(shares) if shares else None,
            "fraction_owned_min": min(shares) if shares else None,
            "fraction_owned_max": max(shares) if shares else None,
            "share_published_count": len(shares),
        }
    case("ownership all lines", "power.asset_ownership", "2024-12-31", {}, totals=metrics(lines))
    op = [x for x in lines if x["status"] == "OP"]
    case("ownership operating", "power.asset_ownership", "2024-12-31", {"filters": {"status": "OP"}}, totals=metrics(op))
    by_state = collections.defaultdict(list)
    for x in lines:
        by_state[x["state"]].append(x)
    case("ownership generators by state", "power.asset_ownership", "2024-12-31", {"group_by": ["state"]},
         groups={"distinct_generator_count": {s: metrics(v)["distinct_generator_count"] for s, v in by_state.items()}})
    by_status = collections.defaultdict(list)
    for x in lines:
        by_status[x["status"]].append(x)
    case("ownership lines by status", "power.asset_ownership", "2024-12-31", {"group_by": ["status"]},
         groups={"ownership_line_count": {s: len(v) for s, v in by_status.items()}})
    # One owner by its published name: Alabama Power Co.
    ap = [x for x in lines if x["owner_name"] == "Alabama Power Co"]
    case("ownership Alabama Power Co", "power.asset_ownership", "2024-12-31", {"filters": {"owner_name": "Alabama Power Co"}}, totals=metrics(ap))


# ---------------------------------------------------------------------------------------
# power.demand and power.demand_rollup: eia930/Demand_for_California_(region)_hourly_-_UTC_time.csv.
# Lines 1-5 preamble; then "MM/D/YYYY HHH,<MWh>", UTC, hour ENDING. An hour belongs to the
# day and month of its start (end - 1 h); local days use America/Los_Angeles (zoneinfo).
def demand():
    from zoneinfo import ZoneInfo
    la = ZoneInfo("America/Los_Angeles")
    utc = datetime.timezone.utc
    path = os.path.join(EIA, "eia930", "Demand_for_California_(region)_hourly_-_UTC_time.csv")
    hours = []
    with open(path, newline="") as f:
        for i, rec in enumerate(csv.reader(f)):
            if i < 5:
                continue
            d, h = rec[0].split(" ")
            mo, dy, yr = (int(x) for x in d.split("/"))
            end = datetime.datetime(yr, mo, dy, int(h[:-1]), tzinfo=utc)
            hours.append((end, float(rec[1])))
    as_of = max(e for e, _ in hours).strftime("%Y-%m-%d")

    def hourly(sel):
        v = [x for _, x in sel]
        return {"demand_mwh": fsum(v), "mean_demand_mwh": fsum(v) / len(v), "peak_demand_mwh": max(v), "min_demand_mwh": min(v),
                "hours_present": len(v), "source_record_count": len(v)}
    start = lambda e: e - datetime.timedelta(hours=1)
    jul = [(e, v) for e, v in hours if start(e).strftime("%Y-%m") == "2021-07"]
    case("demand July 2021 UTC", "power.demand", as_of, {"utc_date_from": "2021-07-01", "utc_date_to": "2021-07-31"}, totals=hourly(jul))
    by_year = collections.defaultdict(list)
    for e, v in hours:
        by_year[str(start(e).year)].append(v)
    case("demand by UTC year", "power.demand", as_of, {"group_by": ["utc_year"]},
         groups={"demand_mwh": {y: fsum(v) for y, v in by_year.items()}, "hours_present": {y: len(v) for y, v in by_year.items()}})
    loc = [(e, v) for e, v in hours if start(e).astimezone(la).strftime("%Y-%m-%d") == "2021-11-07"]
    case("demand local day 2021-11-07 (25 hours)", "power.demand", as_of, {"local_date_from": "2021-11-07", "local_date_to": "2021-11-07"}, totals=hourly(loc))

    def rollup(sel, expected):
        v = [x for _, x in sel]
        return {"demand_mwh": fsum(v), "mean_mwh": fsum(v) / len(v), "peak_mwh": max(v), "hours_present": len(v),
                "hours_expected": expected, "hours_missing": expected - len(v), "period_count": 1}
    case("rollup UTC month 2021-07", "power.demand_rollup", as_of,
         {"filters": {"rollup_basis": "month UTC"}, "period_date_from": "2021-07-01", "period_date_to": "2021-07-31"}, totals=rollup(jul, 744))
    for day, n in (("2021-03-14", 23), ("2021-11-07", 25), ("2021-07-04", 24)):
        sel = [(e, v) for e, v in hours if start(e).astimezone(la).strftime("%Y-%m-%d") == day]
        case("rollup local day " + day, "power.demand_rollup", as_of,
             {"filters": {"rollup_basis": "day America/Los_Angeles"}, "period_date_from": day, "period_date_to": day}, totals=rollup(sel, n))
    # The partial first and last UTC days of the series.
    for day in ("2015-07-01", "2022-02-19"):
        sel = [(e, v) for e, v in hours if start(e).strftime("%Y-%m-%d") == day]
        case("rollup partial UTC day " + day, "power.demand_rollup", as_of,
             {"filters": {"rollup_basis": "day UTC"}, "period_date_from": day, "period_date_to": day}, totals=rollup(sel, 24))
    by_month = collections.defaultdict(list)
    for e, v in hours:
        if start(e).year == 2020:
            by_month[start(e).strftime("%Y-%m")].append(v)
    case("rollup UTC months of 2020: peaks", "power.demand_rollup", as_of,
         {"filters": {"rollup_basis": "month UTC"}, "period_date_from": "2020", "period_date_to": "2020", "group_by": ["period"]},
         groups={"peak_mwh": {m: max(v) for m, v in by_month.items()}, "demand_mwh": {m: fsum(v) for m, v in by_month.items()}})


# ---------------------------------------------------------------------------------------
# natural_gas.prices, atom state_electric_power_monthly: ng_prices/NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls,
# sheet Data 1, row 2 sourcekeys N3045<state>3 (the U.S. column N3045US3 is not this atom), rows
# 4.. monthly (Excel serial on the 15th). Blank cells are null. The snapshot's as_of is the
# latest release of all the capability's workbooks (RNGWHHDd.xls, 2024-07-10).
def state_gas_prices():
    import re
    import xlrd
    sh = xlrd.open_workbook(os.path.join(EIA, "ng_prices", "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls")).sheet_by_name("Data 1")
    series = {}
    for c in range(1, sh.ncols):
        m = re.match(r"^N3045([A-Z]{2})3$", sh.cell_value(1, c))
        if m and m.group(1) != "US":
            series[m.group(1)] = c
    obs = []  # (state, YYYY-MM, price or None)
    for r in range(3, sh.nrows):
        y, mo, d = xlrd.xldate_as_tuple(sh.cell_value(r, 0), 0)[:3]
        assert d == 15
        for st, c in series.items():
            v = sh.cell_value(r, c)
            obs.append((st, "%04d-%02d" % (y, mo), None if v == "" else float(v)))

    def m(sel):
        v = [p for _, _, p in sel if p is not None]
        t = {"observation_count": len(v), "source_record_count": len(sel)}
        if v:
            t.update({"avg_price": fsum(v) / len(v), "min_price": min(v), "max_price": max(v)})
        return t
    atom = {"atom": "state_electric_power_monthly"}
    case("state electric power all", "natural_gas.prices", "2024-07-10", {"filters": atom}, totals=m(obs))
    case("state electric power Texas 2022", "natural_gas.prices", "2024-07-10",
         {"filters": dict(atom, area="TX"), "observation_date_from": "2022-01-01", "observation_date_to": "2022-12-31"},
         totals=m([o for o in obs if o[0] == "TX" and o[1].startswith("2022")]))
    dec = [o for o in obs if o[1] == "2022-12"]
    case("state electric power 2022-12 by state", "natural_gas.prices", "2024-07-10",
         {"filters": dict(atom, month="2022-12"), "group_by": ["area"]},
         groups={"observation_count": {st: len([1 for o in dec if o[0] == st and o[2] is not None]) for st in series}})
    case("state electric power Wyoming (a negative month)", "natural_gas.prices", "2024-07-10",
         {"filters": dict(atom, area="WY")}, totals=m([o for o in obs if o[0] == "WY"]))


# ---------------------------------------------------------------------------------------
# power.generation: eia923_api/eia923_2022.json, response.data (all values are strings).
# Levels: plant_total (fuel2002 ALL and primeMover ALL), fuel_total (primeMover ALL),
# fuel_prime_mover (the rest). The response holds 5000 of 10426 rows sorted by period
# descending, so its oldest month (2022-07) is partial and not served.
def generation():
    d = json.load(open(os.path.join(EIA, "eia923_api", "eia923_2022.json")))
    rows = d["response"]["data"]
    assert len(rows) < int(d["response"]["total"]) and d["request"]["params"]["sort"][0]["direction"] == "desc"
    oldest = min(r["period"] for r in rows)
    rows = [r for r in rows if r["period"] != oldest]

    def level(r):
        if r["fuel2002"] == "ALL" and r["primeMover"] == "ALL":
            return "plant_total"
        return "fuel_total" if r["primeMover"] == "ALL" else "fuel_prime_mover"

    def m(sel):
        return {"net_generation_mwh": fsum(float(r["generation"]) for r in sel),
                "gross_generation_mwh": fsum(float(r["gross-generation"]) for r in sel),
                "distinct_plant_count": len({r["plantCode"] for r in sel}), "source_record_count": len(sel)}
    as_of = "2022-12-31"
    plant = [r for r in rows if level(r) == "plant_total"]
    case("generation plant totals Aug-Dec 2022", "power.generation", as_of, {"filters": {"level": "plant_total"}}, totals=m(plant))
    by_period = collections.defaultdict(list)
    for r in plant:
        by_period[r["period"]].append(r)
    case("generation plant totals by month", "power.generation", as_of, {"filters": {"level": "plant_total"}, "group_by": ["period"]},
         groups={"net_generation_mwh": {p: m(v)["net_generation_mwh"] for p, v in by_period.items()}})
    dec = [r for r in rows if level(r) == "fuel_total" and r["period"] == "2022-12"]
    by_fuel = collections.defaultdict(list)
    for r in dec:
        by_fuel[r["fuel2002"]].append(r)
    case("generation 2022-12 by energy source", "power.generation", as_of,
         {"filters": {"level": "fuel_total", "period": "2022-12"}, "group_by": ["energy_source_code"]},
         groups={"net_generation_mwh": {f: m(v)["net_generation_mwh"] for f, v in by_fuel.items()}})
    ps = [r for r in rows if level(r) == "fuel_prime_mover" and r["primeMover"] == "PS"]
    case("generation pumped storage detail (negative)", "power.generation", as_of,
         {"filters": {"level": "fuel_prime_mover", "prime_mover_code": "PS"}}, totals=m(ps))
    case("generation rows of every level", "power.generation", as_of, {}, totals={"source_record_count": len(rows),
         "distinct_plant_count": len({r["plantCode"] for r in rows})})


retail_sales()
asset_ownership()
demand()
state_gas_prices()
generation()

with open(OUT, "w") as f:
    f.write("[\n")
    f.write(",\n".join(" " + json.dumps(c) for c in cases))
    f.write("\n]\n")
print("wrote %d cases to %s" % (len(cases), OUT))
