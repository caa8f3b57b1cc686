#!/usr/bin/python3
"""Golden figures for the interconnection queue capabilities, computed straight from the raw
files with the Python standard library only (the csv module, and xlsx_stdlib beside this script:
zipfile and xml.etree), no citeq code: per file and sheet, the project
count and the sum of each capacity column; per file, projects and headline MW by normalized
status (the status table below is written from the operators' own values, independently of
the Go tables).

    /usr/bin/python3 testdata/golden/compute_queues.py > testdata/golden/queues.json

Raw files are read from $CITEQ_RAW (default ../shared/data/raw)."""
import csv, datetime, json, os, re, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xlsx_stdlib import Workbook, excel_date

RAW = os.environ.get("CITEQ_RAW", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "raw"))


def field_name(header):
    s = re.sub(r"[^a-z0-9]+", "_", header.lower()).strip("_")
    return "col_" + s if not s or s[0].isdigit() else s


def num(v, blanks=()):
    """A capacity cell as a float, None when blank."""
    if v is None:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    t = str(v).strip()
    if t in ("", ".") or t in blanks:
        return None
    return float(t)


def blank(v, blanks=()):
    return v is None or str(v).strip() in ("", ".") or str(v).strip() in blanks


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    return {"csv": (rows[0], rows[1:])}


def read_xlsx(path, sheets):
    """sheets: name -> (header row, header span). Returns name -> (labels, data rows)."""
    wb = Workbook(path)
    out = {}
    for name, (hrow, span) in sheets.items():
        if name not in wb.sheetnames:
            continue
        rows = wb.rows(name)
        width = max(len(r) for r in rows)
        labels = [""] * width
        for r in rows[hrow - 1:hrow - 1 + span]:
            for i, v in enumerate(r):
                if v is not None and str(v).strip():
                    labels[i] = (labels[i] + " " + " ".join(str(v).split())).strip()
        out[name] = (labels, [list(r) + [None] * (width - len(r)) for r in rows[hrow - 1 + span:]])
    return out


def is_note(row):
    cells = [str(v).strip() for v in row if v is not None and str(v).strip()]
    if not cells:
        return False
    low = cells[0].lower()
    for p in ("note", "notes", "source", "sources", "footnote", "footnotes", "*", "†", "(d)", "(na)", "(s)", "(x)", "(z)", "released:", "release date"):
        if low.startswith(p) and (low == p or not low[len(p)].isalpha()):
            return True
    return len(cells) == 1 and len(cells[0].split()) >= 6


CASES = []


def add(name, cap, as_of, params, totals=None, groups=None):
    c = {"name": name, "capability": cap, "as_of": as_of, "params": params}
    if totals is not None:
        c["totals"] = totals
    if groups is not None:
        c["groups"] = groups
    CASES.append(c)


BY_STATUS = {}  # (capability, as_of) -> status -> [projects, MW, MW cells, MW values]


def figures(op, path, as_of, tables):
    """tables: sheet -> (labels, rows). Adds the per-sheet cases and counts by status."""
    by_status = BY_STATUS.setdefault((op["cap"], as_of), {})
    for sheet, (labels, rows) in tables.items():
        col = {" ".join(l.split()).lower(): i for i, l in reversed(list(enumerate(labels))) if l}
        key = col[op["key"].lower()]
        n = 0
        sums = {h: [0.0, 0] for h in op["mw"]}
        for r in rows:
            if blank(r[key]) or is_note(r):
                continue
            if str(r[key]).strip() in op.get("skip", ()):
                continue
            if "pattern" in op and not re.match(op["pattern"], str(r[key]).strip()):
                continue
            n += 1
            for h in op["mw"]:
                if h.lower() in col:
                    v = num(r[col[h.lower()]], op.get("blanks", ()))
                    if v is not None:
                        sums[h][0] += v
                        sums[h][1] += 1
            st = op["status"](sheet, r, col)
            g = by_status.setdefault(st, [0, 0.0, 0, []])
            g[0] += 1
            heads = [h.lower() for h in (op["headline"] if isinstance(op["headline"], tuple) else (op["headline"],)) if h.lower() in col]
            v = num(r[col[heads[0]]], op.get("blanks", ())) if heads else None
            if v is not None:
                g[1] += v
                g[2] += 1
                g[3].append(v)
        totals = {"project_count": n}
        for h, (s, k) in sums.items():
            if k:
                totals["sum_" + field_name(h)] = s
        add(f"{op['cap']} {os.path.basename(path)} sheet {sheet.strip()}", op["cap"], as_of, {"filters": {"sheet": sheet}}, totals)


def status_cases():
    """One by-status case per snapshot (all its files)."""
    for (cap, as_of), by_status in BY_STATUS.items():
        groups = {"project_count": {s: g[0] for s, g in by_status.items()},
                  "requested_mw": {s: g[1] for s, g in by_status.items() if g[2]},
                  # statistics.median: the middle value, or the mean of the two middle ones
                  "median_requested_mw": {s: statistics.median(g[3]) for s, g in by_status.items() if g[3]}}
        for m in ("requested_mw", "median_requested_mw"):
            if len(groups[m]) != len(groups["project_count"]):
                del groups[m]
        add(f"{cap} {as_of} by status", cap, as_of, {"group_by": ["status"]}, groups=groups)
        every = [v for g in by_status.values() for v in g[3]]
        if every:
            add(f"{cap} {as_of} median", cap, as_of, {}, totals={"median_requested_mw": statistics.median(every),
                                                                "mean_requested_mw": sum(every) / len(every)})


def miso_status(sheet, r, col):
    raw = r[col["request status"]]
    post = r[col["post gia status"]]
    if raw == "Withdrawn" or (raw == "Done" and post == "Withdrawn"):
        return "withdrawn"
    if raw == "Done" and post.startswith("In Service"):
        return "operational"
    return "active"


MISO = {"cap": "power.interconnection_queue", "key": "Project #", "headline": "Summer MW", "skip": ("AA1234",),
        "mw": ["Summer MW", "Winter MW", "Decision Point 1 ERIS MW", "Decision Point 1 NRIS MW", "Decision Point 2 ERIS MW", "Decision Point 2 NRIS MW"],
        "status": miso_status}


def miso():
    for name in ("GI_Interactive_Queue_2025-01.csv", "GI_Interactive_Queue_2025-05.csv"):
        path = os.path.join(RAW, "iso", "miso", name)
        tables = read_csv(path)
        labels, rows = tables["csv"]
        w = labels.index("Withdrawn Date")
        as_of = max(r[w][:10] for r in rows if r[w])
        figures(MISO, path, as_of, tables)


def first_row(path, sheet=None):
    """Row 1 of a sheet (the first sheet by default)."""
    wb = Workbook(path)
    return wb.rows(sheet or wb.sheetnames[0])[0]


def mdy(v):
    """A M/D/YYYY text date (or a date cell's Excel serial number) as YYYY-MM-DD, None otherwise."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return excel_date(v).strftime("%Y-%m-%d")
    m = re.match(r"^(\d{1,2})/(\d{1,2})/(\d{4})$", str(v or "").strip())
    return "%s-%02d-%02d" % (m.group(3), int(m.group(1)), int(m.group(2))) if m else None


def latest(tables, sheet, label):
    labels, rows = tables[sheet]
    i = labels.index(label)
    return max(d for d in (mdy(r[i]) for r in rows) if d)


PJM_STATUS = {"Active": "active", "Engineering and Procurement": "active", "Under Construction": "active",
              "Partially in Service - Under Construction": "active", "Suspended": "suspended", "In Service": "operational",
              "Withdrawn": "withdrawn", "Canceled": "withdrawn", "Deactivated": "withdrawn", "EP": "active"}


def pjm_status(sheet, r, col):
    return PJM_STATUS[r[col["status"]]]


def pjm():
    for name, cap, asof_col in (("PlanningQueues_2025-01.xlsx", "power.interconnection_queue_pjm", "Withdrawal Date"),
                                ("CycleProjects-All.xlsx", "power.interconnection_queue_pjm_cycle", "Last Updated")):
        path = os.path.join(RAW, "iso", "pjm", name)
        tables = read_xlsx(path, {"Data": (1, 1)})
        op = {"cap": cap, "key": "Project ID", "headline": "MW Energy", "mw": ["MW Energy", "MW Capacity", "MW In Service"],
              "status": pjm_status, "blanks": ("N/A",)}
        figures(op, path, latest(tables, "Data", asof_col), tables)


def caiso_status(sheet, r, col):
    if sheet == "Cluster 15 ":
        return "active"
    if sheet == "Withdrawn":
        return "withdrawn"
    raw = r[col["application status"]]
    if raw == "ACTIVE":
        return "suspended" if r[col["suspension status"]] == "Suspended" else "active"
    return {"COMPLETED": "operational", "WITHDRAWN": "withdrawn"}[raw]


def caiso():
    sheets = {"Grid GenerationQueue": (4, 1), "Completed Generation Projects": (4, 1), "Withdrawn Generation Projects": (4, 1)}
    for name in ("publicqueuereport-01232025.xlsx", "publicqueuereport-08112025.xlsx", "publicqueuereport-08032026.xlsx"):
        path = os.path.join(RAW, "iso", "caiso", name)
        first = first_row(path)
        run = next(str(v) for v in first if v and "Report Run Date" in str(v))
        as_of = mdy(run.split(":", 1)[1].strip())
        op = {"cap": "power.interconnection_queue_caiso", "key": "Queue Position", "headline": "Net MWs to Grid",
              "mw": ["MW-1", "MW-2", "MW-3", "Net MWs to Grid"], "status": caiso_status}
        figures(op, path, as_of, read_xlsx(path, sheets))
    path = os.path.join(RAW, "iso", "caiso", "cluster-15-interconnection-requests.xlsx")
    tables = read_xlsx(path, {"Cluster 15 ": (1, 1), "Withdrawn": (1, 1)})
    op = {"cap": "power.interconnection_queue_caiso", "key": "Queue Number", "headline": "NET MW POI", "blanks": ("N/A",),
          "mw": ["NET MW 1", "NET MW 2", "NET MW 3", "NET MW POI"], "status": caiso_status}
    figures(op, path, "2026-08-03", tables)  # joins the latest report's snapshot


def nyiso_status(sheet, r, col):
    code = str(r[col["s"]]).strip()
    if code == "0":
        return "withdrawn"
    if code in ("14", "14C", "11,14", "12,14"):
        return "operational"
    return "active"


def nyiso():
    for name in ("NYISO-Interconnection-Queue_2020-11.xlsx", "NYISO-Interconnection-Queue_2025-01.xlsx"):
        path = os.path.join(RAW, "iso", "nyiso", name)
        sheets = {"Interconnection Queue": (1, 1), " Cluster Projects": (1, 1), "Withdrawn": (1, 1),
                  "Cluster Projects-Withdrawn": (1, 1), "In Service": (1, 2)}
        tables = read_xlsx(path, sheets)
        labels, rows = tables["Interconnection Queue"]
        i = next(k for k, l in enumerate(labels) if l in ("Last Updated Date", "Last Update"))
        as_of = max(mdy(r[i]) for r in rows if isinstance(r[i], (int, float)))
        op = {"cap": "power.interconnection_queue_nyiso", "key": "Queue Pos.", "headline": "SP (MW)",
              "mw": ["SP (MW)", "WP (MW)"], "status": nyiso_status, "blanks": ("N/A", "TBD")}
        figures(op, path, as_of, tables)


def isone_status(sheet, r, col):
    raw = r[col["project status"]]
    if raw is None:
        return "withdrawn" if r[col["w/ d date"]] is not None else "active"
    return {"Under Study": "active", "Under Construction": "active", "Partially In Service": "active",
            "In Service": "operational", "Suspended": "suspended"}[raw]


def isone():
    for name in ("QueueReport_20240830090927.xlsx", "QueueReport_2025-01-23.xlsx"):
        path = os.path.join(RAW, "iso", "isone", name)
        first = first_row(path, "Queue")
        stamp = next(str(v) for v in first if v and str(v).startswith("As of:"))
        as_of = mdy(stamp.split(":", 1)[1].split()[0])
        op = {"cap": "power.interconnection_queue_isone", "key": "Position", "headline": "Net MW",
              "mw": ["Net MW", "Summer MW", "Winter MW"], "status": isone_status, "blanks": ("N/A",)}
        figures(op, path, as_of, read_xlsx(path, {"Queue": (5, 1)}))


SPP_STATUS = {"DISIS STAGE": "active", "FACILITY STUDY STAGE": "active", "IA PENDING": "active",
              "IA FULLY EXECUTED/ON SCHEDULE": "active", "IA FULLY EXECUTED/ON SUSPENSION": "suspended",
              "IA FULLY EXECUTED/COMMERCIAL OPERATION": "operational", "None": "active"}


def spp():
    path = os.path.join(RAW, "iso", "spp", "GI_ActiveRequest_2025-01-22_resaved.xlsx")
    first = first_row(path)
    op = {"cap": "power.interconnection_queue_spp", "key": "Generation Interconnection Number", "headline": "Capacity",
          "mw": ["Capacity", "MAX Summer MW", "MAX Winter MW"],
          "status": lambda sheet, r, col: SPP_STATUS[r[col["status"]]]}
    figures(op, path, mdy(first[1]), read_xlsx(path, {"SPP GI_ActiveRequest": (2, 1)}))


def ercot_status(sheet, r, col):
    if sheet.startswith("Project Details"):
        return "active"
    if sheet == "Inactive Projects":
        return "suspended"
    if sheet == "Cancellation Update":
        return "withdrawn"
    return "operational" if r[col["commissioning category"]].startswith("Commercial Operation") else "active"


def ercot():
    path = os.path.join(RAW, "iso", "ercot", "GIS_Report_December2024.xlsx")
    period = next(str(v) for row in Workbook(path).rows("Contents") for v in row if v and "GIM Activity" in str(v))
    as_of = datetime.datetime.strptime(" ".join(period.split(" to ")[1].split()), "%b %d, %Y").strftime("%Y-%m-%d")
    sheets = {"Project Details - Large Gen": (31, 5), "Project Details - Small Gen": (15, 3), "Inactive Projects": (8, 1),
              "Cancellation Update": (8, 1), "Commissioning Update": (8, 1)}
    op = {"cap": "power.interconnection_queue_ercot", "key": "INR", "pattern": r"^\d\dINR\d+", "headline": ("Capacity (MW)", "MW **"),
          "mw": ["Capacity (MW)", "MW **"], "status": ercot_status}
    figures(op, path, as_of, read_xlsx(path, sheets))


def main():
    miso()
    pjm()
    caiso()
    nyiso()
    isone()
    ercot()
    spp()
    status_cases()
    out = sys.stdout
    out.write("[\n")
    out.write(",\n".join(" " + json.dumps(c) for c in CASES))
    out.write("\n]\n")


def snapshot_projects(op, tables, raw_status):
    """key -> (status, raw status, headline MW) of one snapshot, the n-th repeat of an id on a
    sheet keyed id#n."""
    out, seen = {}, {}
    for sheet, (labels, rows) in tables.items():
        col = {" ".join(l.split()).lower(): i for i, l in reversed(list(enumerate(labels))) if l}
        key = col[op["key"].lower()]
        for r in rows:
            if blank(r[key]) or is_note(r) or str(r[key]).strip() in op.get("skip", ()):
                continue
            qid = str(r[key]).strip()
            if isinstance(r[key], float) and r[key].is_integer():
                qid = str(int(r[key]))
            seen[(qid, sheet)] = seen.get((qid, sheet), 0) + 1
            k = qid if seen[(qid, sheet)] == 1 else "%s#%d" % (qid, seen[(qid, sheet)])
            heads = [h.lower() for h in (op["headline"] if isinstance(op["headline"], tuple) else (op["headline"],)) if h.lower() in col]
            mw = num(r[col[heads[0]]], op.get("blanks", ())) if heads else None
            out[k] = (op["status"](sheet, r, col), raw_status(sheet, r, col), mw)
    return out


def diff(before, after):
    entered = [k for k in after if k not in before]
    left = [k for k in before if k not in after]
    both = [k for k in after if k in before]
    status = [k for k in both if before[k][:2] != after[k][:2]]
    withdrawn = [k for k in status if after[k][0] == "withdrawn" and before[k][0] != "withdrawn"]
    mw = [k for k in both if before[k][2] != after[k][2]]
    return {"entered": len(entered), "left": len(left), "status_changed": len(status), "withdrawn_since": len(withdrawn), "mw_changed": len(mw)}


def diffs():
    """What changed between snapshots (compare_as_of), printed as JSON lines."""
    snaps = []
    for name in ("GI_Interactive_Queue_2025-01.csv", "GI_Interactive_Queue_2025-05.csv"):
        snaps.append(snapshot_projects(MISO, read_csv(os.path.join(RAW, "iso", "miso", name)),
                                       lambda sheet, r, col: r[col["request status"]]))
    print(json.dumps({"capability": "power.interconnection_queue", "from": "2025-01-17", "to": "2025-05-09", **diff(*snaps)}))
    sheets = {"Grid GenerationQueue": (4, 1), "Completed Generation Projects": (4, 1), "Withdrawn Generation Projects": (4, 1)}
    op = {"key": "Queue Position", "headline": "Net MWs to Grid", "status": caiso_status}
    caiso_raw = lambda sheet, r, col: r[col["application status"]]
    snaps = {}
    for name, as_of in (("publicqueuereport-01232025.xlsx", "2025-01-23"), ("publicqueuereport-08112025.xlsx", "2025-08-11"), ("publicqueuereport-08032026.xlsx", "2026-08-03")):
        snaps[as_of] = snapshot_projects(op, read_xlsx(os.path.join(RAW, "iso", "caiso", name), sheets), caiso_raw)
    c15 = read_xlsx(os.path.join(RAW, "iso", "caiso", "cluster-15-interconnection-requests.xlsx"), {"Cluster 15 ": (1, 1), "Withdrawn": (1, 1)})
    snaps["2026-08-03"].update(snapshot_projects({"key": "Queue Number", "headline": "NET MW POI", "status": caiso_status, "blanks": ("N/A",)}, c15,
                                                 lambda sheet, r, col: "Cluster 15" if sheet == "Cluster 15 " else "Withdrawn"))
    for a, b in (("2025-01-23", "2025-08-11"), ("2025-08-11", "2026-08-03"), ("2025-01-23", "2026-08-03")):
        print(json.dumps({"capability": "power.interconnection_queue_caiso", "from": a, "to": b, **diff(snaps[a], snaps[b])}))


if __name__ == "__main__":
    if sys.argv[1:] == ["--diff"]:
        diffs()
    else:
        main()
