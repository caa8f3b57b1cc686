#!/usr/bin/python3
"""Writes testdata/golden/eia_instants.json: power.demand and power.demand_rollup answers to
date-range parameters given as RFC 3339 timestamps, computed from the raw EIA-930 CSV with the
standard library (csv, datetime, zoneinfo), without any citeq code.

    /usr/bin/python3 testdata/golden/compute_eia_instants.py [OUTPUT]

The CSV's lines 6 on are "MM/D/YYYY HHH,value": UTC, hour ending. A timestamp bound T keeps
the hours whose end lies at or after T (_from) or at or before T (_to), compared in UTC; a
fractional second rounds a lower bound up and an upper bound down to whole seconds. For the
rollup, a timestamp keeps whole periods: the days whose first hour ends at or after the lower
bound and whose last hour ends at or before the upper one; local days are the days of
America/Los_Angeles that each hour starts in.
"""
import collections
import csv
import datetime
import json
import math
import os
import sys
import zoneinfo

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RAW = os.environ.get("CITEQ_RAW") or os.path.join(ROOT, "..", "shared", "data", "raw")
CSV = os.path.join(RAW, "eia", "eia930", "Demand_for_California_(region)_hourly_-_UTC_time.csv")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "golden", "eia_instants.json")
UTC = datetime.timezone.utc
LA = zoneinfo.ZoneInfo("America/Los_Angeles")
AS_OF = "2022-02-19"

hours = []  # (hour end, MWh)
with open(CSV, newline="") as f:
    for i, row in enumerate(csv.reader(f)):
        if i < 5:
            continue
        day, hh = row[0].split(" ")
        m, d, y = day.split("/")
        end = datetime.datetime(int(y), int(m), int(d), tzinfo=UTC) + datetime.timedelta(hours=int(hh.rstrip("H")))
        hours.append((end, float(row[1])))


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).astimezone(UTC)


def clean(x):
    return int(x) if x == int(x) and abs(x) < 2**53 else x


def demand_case(name, params, lo=None, hi=None):
    sel = [v for e, v in hours if (lo is None or e >= lo) and (hi is None or e <= hi)]
    return {"name": name, "capability": "power.demand", "as_of": AS_OF, "params": params,
            "totals": {"demand_mwh": clean(math.fsum(sel)), "hours_present": len(sel), "source_record_count": len(sel),
                       "peak_demand_mwh": clean(max(sel)), "min_demand_mwh": clean(min(sel))}}


def rollup_case(name, basis, zone, params, lo, hi):
    days = collections.defaultdict(list)
    for e, v in hours:
        start = (e - datetime.timedelta(hours=1)).astimezone(zone)
        days[start.date()].append((e, v))
    kept = [d for d, hs in days.items() if min(e for e, _ in hs) >= lo and max(e for e, _ in hs) <= hi]
    vals = [v for d in kept for _, v in days[d]]
    return {"name": name, "capability": "power.demand_rollup", "as_of": AS_OF, "params": params,
            "totals": {"period_count": len(kept), "hours_present": len(vals), "demand_mwh": clean(math.fsum(vals)), "peak_mwh": clean(max(vals))},
            "first_period": str(min(kept)), "last_period": str(max(kept))}


cases = [
    demand_case("demand from a UTC timestamp", {"utc_date_from": "2022-02-19T10:00:00Z"}, lo=ts("2022-02-19T10:00:00Z")),
    demand_case("demand, the local day 2022-02-18 as two offset timestamps",
                {"utc_date_from": "2022-02-18T01:00:00-08:00", "utc_date_to": "2022-02-19T00:00:00-08:00"},
                lo=ts("2022-02-18T01:00:00-08:00"), hi=ts("2022-02-19T00:00:00-08:00")),
    demand_case("demand, the UTC day 2022-02-18 by its first and last hour ending",
                {"utc_date_from": "2022-02-18T01:00:00Z", "utc_date_to": "2022-02-19T00:00:00Z"},
                lo=ts("2022-02-18T01:00:00Z"), hi=ts("2022-02-19T00:00:00Z")),
    demand_case("demand, a fractional lower bound rounds up", {"utc_date_from": "2022-02-19T10:00:00.5Z"}, lo=ts("2022-02-19T10:00:01Z")),
    demand_case("demand, a local date and a timestamp", {"local_date_from": "2022-02-18", "local_date_to": "2022-02-18T12:00:00-08:00"},
                lo=ts("2022-02-18T01:00:00-08:00"), hi=ts("2022-02-18T12:00:00-08:00")),
    rollup_case("rollup, UTC days between two timestamps", "day UTC", UTC,
                {"filters": {"rollup_basis": "day UTC"}, "period_date_from": "2022-02-01T00:00:00Z", "period_date_to": "2022-02-10T00:00:00Z"},
                ts("2022-02-01T00:00:00Z"), ts("2022-02-10T00:00:00Z")),
    rollup_case("rollup, local days between two timestamps", "day America/Los_Angeles", LA,
                {"filters": {"rollup_basis": "day America/Los_Angeles"}, "period_date_from": "2022-02-01T00:00:00Z", "period_date_to": "2022-02-10T00:00:00Z"},
                ts("2022-02-01T00:00:00Z"), ts("2022-02-10T00:00:00Z")),
]
with open(OUT, "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print("wrote %s: %d cases over %d hours" % (OUT, len(cases), len(hours)), file=sys.stderr)
