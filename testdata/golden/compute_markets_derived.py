#!/usr/bin/python3
"""Golden values for the capacity-market capabilities served from third-party transcriptions
(markets_derived.json): power.capacity_market_miso (MISO's PRA results and CONE) and
power.capacity_accreditation_pjm (PJM's ELCC class ratings).

Reads the raw CSVs with the standard library only (csv), no citeq code:
  iso/miso/pra_derived/miso_pra_auction_clearing_prices_transcribed.csv
  iso/miso/pra_derived/miso_pra_cone_prm_rbdc_transcribed_EXCERPT.csv
  iso/pjm/elcc_derived/pjm_elcc_class_ratings_DY2025-2028_transcribed_EXCERPT.csv
Selection, from iso/LAYOUT.md ("Fifth pass") and the contract's section 2.4:
  - ACP: planning years from 2024-2025 on, areas "LRZ 1" .. "LRZ 10" (MISO's system rows, the
    ERZ and earlier planning years are not ACP atoms);
  - annual CONE: metric gross_cone, from 2024-2025 on, zones and the ERZs, in the unit stated
    (USD/MW-year, never converted);
  - seasonal CONE: metric net_cone with a season whose vintage names MISO's table "CONE
    (Seasonal)", North/Central and South (the System column is not an atom);
  - the ERZ clearing of fall 2025, quoted in the row's note;
  - PJM: every row, one rating each.
The MISO snapshot's as_of is the latest date in the addresses of the documents cited
(2025-10-15, the FERC filing ER26-139); PJM's is the end of 2025 (its 2025 ELCC report).
Usage:

    /usr/bin/python3 testdata/golden/compute_markets_derived.py [RAW_DIR] [OUT]

RAW_DIR defaults to $CITEQ_RAW, else ../shared/data/raw; OUT to
testdata/golden/markets_derived.json.
"""
import csv
import json
import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "CITEQ_RAW", os.path.join(HERE, "..", "..", "..", "shared", "data", "raw"))
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "markets_derived.json")

MISO = os.path.join(RAW, "iso", "miso", "pra_derived")
PJM = os.path.join(RAW, "iso", "pjm", "elcc_derived")


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def from_2024(py):
    return int(py.split("-")[0]) >= 2024


def zone(area):
    m = re.fullmatch(r"LRZ (\d+)", area)
    return "Z" + m.group(1) if m and 1 <= int(m.group(1)) <= 10 else None


def miso_atoms():
    """(atom_type, planning_year, season, zone or scope, value) of every atom served."""
    out = []
    for r in rows(os.path.join(MISO, "miso_pra_auction_clearing_prices_transcribed.csv")):
        if not from_2024(r["delivery_year"]):
            continue
        if zone(r["area"]):
            out.append(("acp", r["delivery_year"], r["season"], zone(r["area"]), float(r["clearing_price"])))
        elif r["area"] == "ERZ":
            out.append(("acp_erz_verbatim", r["delivery_year"], r["season"], "ERZ", None))
    for r in rows(os.path.join(MISO, "miso_pra_cone_prm_rbdc_transcribed_EXCERPT.csv")):
        if not from_2024(r["delivery_year"]):
            continue
        if r["metric"] == "gross_cone":
            assert r["y_unit"] == "usd_per_mw_yr", r
            out.append(("cone_annual", r["delivery_year"], None, zone(r["area"]) or "ERZ", float(r["y_value"])))
        elif r["metric"] == "net_cone" and r["season"] and r["vintage"].startswith("CONE (Seasonal)") and r["area"] != "System":
            assert r["y_unit"] == "usd_per_mw_day", r
            out.append(("cone_seasonal", r["delivery_year"], r["season"], r["area"], float(r["y_value"])))
    return out


def by(atoms, key, value, agg):
    groups = defaultdict(list)
    for a in atoms:
        groups[key(a)].append(value(a))
    return {k: agg(v) for k, v in sorted(groups.items())}


def mean(v):
    return sum(v) / len(v)


def miso_cases():
    atoms = miso_atoms()
    acp = [a for a in atoms if a[0] == "acp"]
    annual = [a for a in atoms if a[0] == "cone_annual"]
    cone = [a for a in atoms if a[0] in ("cone_annual", "cone_seasonal")]
    cap, as_of = "power.capacity_market_miso", "2025-10-15"
    return [
        {"name": "miso all atoms", "capability": cap, "as_of": as_of, "params": {},
         "totals": {"source_record_count": len(atoms)}},
        {"name": "miso atoms by atom_type", "capability": cap, "as_of": as_of, "params": {"group_by": ["atom_type"]},
         "groups": {"source_record_count": by(atoms, lambda a: a[0], lambda a: 1, len)}},
        {"name": "miso acp by planning_year", "capability": cap, "as_of": as_of,
         "params": {"filters": {"atom_type": "acp"}, "group_by": ["planning_year"]},
         "totals": {"avg_acp_usd_mw_day": mean([a[4] for a in acp]), "min_acp_usd_mw_day": min(a[4] for a in acp),
                    "max_acp_usd_mw_day": max(a[4] for a in acp), "source_record_count": len(acp)},
         "groups": {"avg_acp_usd_mw_day": by(acp, lambda a: a[1], lambda a: a[4], mean),
                    "max_acp_usd_mw_day": by(acp, lambda a: a[1], lambda a: a[4], max)}},
        {"name": "miso acp 2024-2025 by season", "capability": cap, "as_of": as_of,
         "params": {"filters": {"atom_type": "acp", "planning_year": "2024-2025"}, "group_by": ["season"]},
         "groups": {"avg_acp_usd_mw_day": by([a for a in acp if a[1] == "2024-2025"], lambda a: a[2], lambda a: a[4], mean)}},
        {"name": "miso acp by zone", "capability": cap, "as_of": as_of,
         "params": {"filters": {"atom_type": "acp"}, "group_by": ["zone"]},
         "groups": {"avg_acp_usd_mw_day": by(acp, lambda a: a[3], lambda a: a[4], mean)}},
        {"name": "miso cone by atom_type", "capability": cap, "as_of": as_of,
         "params": {"filters": {"atom_type": ["cone_annual", "cone_seasonal"]}, "group_by": ["atom_type"]},
         "groups": {"cone_usd_mw_day": by(cone, lambda a: a[0], lambda a: a[4], max)}},
        {"name": "miso annual cone by planning_year", "capability": cap, "as_of": as_of,
         "params": {"filters": {"atom_type": "cone_annual"}, "group_by": ["planning_year"]},
         "totals": {"cone_usd_mw_day": max(a[4] for a in annual), "source_record_count": len(annual)},
         "groups": {"cone_usd_mw_day": by(annual, lambda a: a[1], lambda a: a[4], max)}},
    ]


def pjm_cases():
    ratings = []
    for r in rows(os.path.join(PJM, "pjm_elcc_class_ratings_DY2025-2028_transcribed_EXCERPT.csv")):
        m = re.fullmatch(r"(\d{4})/(\d{4}) (\S+) \((.*)\)", r["study_vintage"])
        ratings.append((m.group(1) + "/" + m.group(2), m.group(3), float(r["elcc_pct"])))
    cap, as_of = "power.capacity_accreditation_pjm", "2025-12-31"
    return [
        {"name": "pjm ratings by delivery_year", "capability": cap, "as_of": as_of, "params": {"group_by": ["delivery_year"]},
         "totals": {"class_count": len(ratings), "avg_rating_percent": mean([x[2] for x in ratings]),
                    "min_rating_percent": min(x[2] for x in ratings), "max_rating_percent": max(x[2] for x in ratings)},
         "groups": {"avg_rating_percent": by(ratings, lambda x: x[0], lambda x: x[2], mean),
                    "min_rating_percent": by(ratings, lambda x: x[0], lambda x: x[2], min),
                    "class_count": by(ratings, lambda x: x[0], lambda x: 1, len)}},
        {"name": "pjm ratings by auction", "capability": cap, "as_of": as_of, "params": {"group_by": ["auction"]},
         "groups": {"class_count": by(ratings, lambda x: x[1], lambda x: 1, len),
                    "max_rating_percent": by(ratings, lambda x: x[1], lambda x: x[2], max)}},
    ]


def main():
    cases = miso_cases() + pjm_cases()
    with open(OUT, "w") as f:
        f.write("[\n")
        f.write(",\n".join(" " + json.dumps(c) for c in cases))
        f.write("\n]\n")
    print(f"{len(cases)} cases written to {OUT}")


if __name__ == "__main__":
    main()
