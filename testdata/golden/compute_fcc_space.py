#!/usr/bin/python3
"""Re-derives testdata/golden/fixtures/fcc_space.json without any citeq code.

    /usr/bin/python3 testdata/golden/compute_fcc_space.py [OUTPUT]

Inputs:
  - testdata/fixtures/space/fcc_ibfs/{main,address}.dat: synthetic tables written in the
    layout of the FCC's IBFS export (fields split by "|", records ended by "|^|" CRLF,
    Windows-1252), read here with plain string splitting;
  - testdata/fixtures/space/fcc_sat_notices/*.txt: synthetic weekly notices in the notices'
    text layout, read here line by line with columns split on runs of two blanks or more;
  - $CITEQ_RAW/space/fcc_public_notices/*_EXCERPT.txt (default ../shared/data/raw beside the
    repository): the three truncated excerpts of real notices, the layout samples; their
    entries are listed by hand below from reading the files, and checked against the text.

Not run by the test suite; it documents how every golden number was obtained.
"""
import datetime
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RAW = os.environ.get("CITEQ_RAW") or os.path.join(ROOT, "..", "shared", "data", "raw")
FIX = os.path.join(ROOT, "testdata", "fixtures", "space")


def sybase(s):
    """'Jun 18 2025  4:50:24:023PM' -> '2025-06-18'; '' -> None."""
    s = " ".join(s.split())
    if not s:
        return None
    mon, day, year = s.split(" ")[:3]
    return datetime.datetime.strptime("%s %s %s" % (mon, day, year), "%b %d %Y").strftime("%Y-%m-%d")


def records(path):
    text = open(path, "rb").read().decode("cp1252")
    assert text.endswith("|^|\r\n")
    return [r.split("|") for r in text[: -len("|^|\r\n")].split("|^|\r\n")]


def filings():
    names = {int(r[0]): r[2] for r in records(os.path.join(FIX, "fcc_ibfs", "address.dat"))}
    out = {"records": 0, "by_subsystem": {}, "as_of": None}
    sat = []
    for r in records(os.path.join(FIX, "fcc_ibfs", "main.dat")):
        out["records"] += 1
        out["by_subsystem"][r[4]] = out["by_subsystem"].get(r[4], 0) + 1
        upd = sybase(r[18])
        if upd and (out["as_of"] is None or upd > out["as_of"]):
            out["as_of"] = upd
        if r[4] != "SAT":
            continue
        fn = r[3]
        outcomes = [(sybase(r[i]), name) for i, name in ((12, "granted"), (13, "denied"), (14, "dismissed"), (15, "surrendered")) if r[i]]
        disp = "pending"
        if outcomes:
            latest = max(d for d, _ in outcomes)
            disp = [n for d, n in outcomes if d == latest][-1]
        sat.append({
            "file_number": "%s-%s-%s-%s" % (fn[0:3], fn[3:6], fn[6:14], fn[14:19]),
            "application_type": r[25], "status_code": r[5], "disposition": disp,
            "applicant": names[int(r[41])], "grant": bool(r[12]), "filing_year": int(sybase(r[10])[:4]),
        })

    def count(key):
        c = {}
        for f in sat:
            c[f[key]] = c.get(f[key], 0) + 1
        return dict(sorted(c.items()))

    out.update({
        "sat_filings": len(sat),
        "granted_count": sum(1 for f in sat if f["grant"]),
        "distinct_applicants": len({f["applicant"] for f in sat}),
        "by_disposition": count("disposition"),
        "by_status_code": count("status_code"),
        "by_application_type": count("application_type"),
        "by_applicant": count("applicant"),
        "filed_2025": sum(1 for f in sat if f["filing_year"] == 2025),
        "pending_file_numbers": sorted(f["file_number"] for f in sat if f["disposition"] == "pending"),
    })
    return out


HEAD = re.compile(r"^(SAT-[A-Z]{3}-\d{8}-\d{5})$")


def notices():
    entries = []
    reports = {}
    folder = os.path.join(FIX, "fcc_sat_notices")
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".txt")):  # the notices, not the listing
        lines = open(os.path.join(folder, name), encoding="utf-8", newline="").read().split("\r\n")
        report = date = kind = None
        for i, line in enumerate(lines):
            cols = [c for c in re.split(r" {2,}", line.strip()) if c]
            if cols and cols[0].startswith("Report No. "):
                report = cols[0][len("Report No. "):]
                date = datetime.datetime.strptime(cols[1].split(" ", 1)[1], "%B %d, %Y").strftime("%Y-%m-%d")
            if report and kind is None and line.strip() in ("Space Station Applications Accepted for Filing", "Actions Taken"):
                kind = "accepted_for_filing" if "Accepted" in line else "actions_taken"
            if len(cols) == 4 and HEAD.match(cols[0]):
                e = {"report": report, "type": kind, "file_number": cols[0], "call_sign": cols[2], "applicant": cols[3], "row": i + 1,
                     "action": None, "effective": None}
                for nxt in lines[i + 1:i + 5]:
                    if "Effective Date:" in nxt:
                        a, d = re.split(r" {2,}", nxt.strip())
                        e["action"] = a
                        e["effective"] = datetime.datetime.strptime(d.split(": ")[1], "%m/%d/%Y").strftime("%Y-%m-%d")
                entries.append(e)
        reports[report] = date

    def count(key):
        c = {}
        for e in entries:
            c[str(e[key])] = c.get(str(e[key]), 0) + 1
        return dict(sorted(c.items()))

    return {
        "as_of": max(reports.values()),
        "reports": dict(sorted(reports.items())),
        "entries": len(entries),
        "distinct_file_numbers": len({e["file_number"] for e in entries}),
        "distinct_applicants": len({e["applicant"] for e in entries}),
        "by_type": count("type"),
        "by_action": count("action"),
        "by_report": count("report"),
        "by_applicant": count("applicant"),
        # the first entry of SAT-01901, the test's first record of that report
        "first_entry": {k: [e for e in entries if e["report"] == "SAT-01901"][0][k] for k in ("file_number", "call_sign", "applicant", "row")},
    }


# The layout samples: what each excerpt prints, read by eye and checked against its text here.
SAMPLES = {
    "SAT-01603_2022-01-21_accepted_for_filing_EXCERPT.txt": {
        "report": "SAT-01603", "date": "2022-01-21", "type": "accepted_for_filing", "da": "",
        "entries": [["SAT-AMD-20220107-00003", "S2129", "Maxar License Inc.", "", "", "2022-01-07"]],
    },
    "SAT-01325_2018-06-29_accepted_for_filing_EXCERPT.txt": {
        "report": "SAT-01325", "date": "2018-06-29", "type": "accepted_for_filing", "da": "",
        "entries": [["SAT-AMD-20180102-00001", "S2946", "Spire Global, Inc.", "", "", "2018-01-02"]],
    },
    "SAT-00555_2008-09-19_actions_taken_EXCERPT.txt": {
        "report": "SAT-00555", "date": "2008-09-19", "type": "actions_taken", "da": "08-2118",
        "entries": [
            ["SAT-LOA-20080910-00175", "S2765", "SES Americom, Inc.", "Withdrawn", "2008-09-15", ""],
            ["SAT-LOA-20080910-00176", "S2766", "SES Americom, Inc.", "Withdrawn", "2008-09-15", ""],
            ["SAT-MOD-20080521-00110", "S2105", "Satellite CD Radio, Inc.", "Grant of Authority", "2008-09-17", ""],
        ],
    },
}


def samples():
    folder = os.path.join(RAW, "space", "fcc_public_notices")
    for name, want in SAMPLES.items():
        text = open(os.path.join(folder, name), encoding="utf-8").read()
        flat = " ".join(text.split())
        assert "Report No. %s" % want["report"] in flat, name
        for fn, cs, app, action, eff, filed in want["entries"]:
            assert "%s E %s %s" % (fn, cs, app) in flat, (name, fn)
            if action:
                m = datetime.datetime.strptime(eff, "%Y-%m-%d").strftime("%m/%d/%Y")
                assert "%s Effective Date: %s" % (action, m) in flat, (name, fn)
            if filed:
                m = datetime.datetime.strptime(filed, "%Y-%m-%d").strftime("%m/%d/%Y")
                assert "Date Filed: %s" % m in flat, (name, fn)
    return SAMPLES


def main():
    out = {"filings": filings(), "notices": notices(), "notice_samples": samples()}
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "golden", "fixtures", "fcc_space.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
