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
SNAP_ROWS = {}  # (capability, as_of) -> the record (record()) of every project row


def record(op, sheet, r, col):
    """What the cases read of one project row: normalized status (None on a placeholder, which
    is not a project), headline MW, request kind, state, why it cannot be matched between
    snapshots, whether its status is inferred and whether it is marked as moved to another
    queue."""
    qid = str(r[col[op["key"].lower()]]).strip()
    defect = op["unmatched"](qid, r, col) if "unmatched" in op else None
    heads = [h.lower() for h in (op["headline"] if isinstance(op["headline"], tuple) else (op["headline"],)) if h.lower() in col]
    placeholder = defect == "placeholder"
    return {"queue_id": qid, "sheet": sheet, "defect": defect,
            "status": None if placeholder else op["status"](sheet, r, col),
            "mw": num(r[col[heads[0]]], op.get("blanks", ())) if heads else None,
            "kind": None if placeholder else op.get("kind", lambda sheet, r, col: "generation")(sheet, r, col),
            "state": op["state"](r, col) if "state" in op else None,
            "type": r[col["type"]] if "type" in col else None,
            "inferred": op.get("inferred", lambda r, col: False)(r, col),
            "in_service": op.get("in_service", lambda r, col: None)(r, col),
            "moved": bool(op.get("moved") and re.search(op["moved"], qid))}


def figures(op, path, as_of, tables):
    """tables: sheet -> (labels, rows). Adds the per-sheet cases and counts by status."""
    by_status = BY_STATUS.setdefault((op["cap"], as_of), {})
    recs = SNAP_ROWS.setdefault((op["cap"], as_of), [])
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
            rec = record(op, sheet, r, col)
            recs.append(rec)
            if rec["status"] is not None:  # a placeholder is not a project
                n += 1
            for h in op["mw"]:
                if h.lower() in col:
                    v = num(r[col[h.lower()]], op.get("blanks", ()))
                    if v is not None:
                        sums[h][0] += v
                        sums[h][1] += 1
            st = rec["status"]
            g = by_status.setdefault(st, [0, 0.0, 0, []])
            g[0] += st is not None
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


# Full state names, as some operators write them (MISO: "Michigan"), and the one state code
# MISO publishes wrong for its county: Desha County is in Arkansas (AR); AK is Alaska.
STATE_NAMES = {"michigan": "MI", "arkansas": "AR", "illinois": "IL", "indiana": "IN", "iowa": "IA", "kentucky": "KY",
               "louisiana": "LA", "minnesota": "MN", "mississippi": "MS", "missouri": "MO", "montana": "MT",
               "north dakota": "ND", "south dakota": "SD", "texas": "TX", "wisconsin": "WI"}
COUNTY_STATE = {("desha", "AK"): "AR"}


def miso_state(r, col):
    """The state as a two-letter code (None when blank)."""
    s = (r[col["state"]] or "").strip()
    s = STATE_NAMES.get(s.lower(), s)
    return COUNTY_STATE.get(((r[col["county"]] or "").strip().lower(), s), s) or None


def miso_unmatched(qid, r, col):
    """Why a MISO row cannot be matched between exports: a placeholder (no queue date, place,
    fuel or POI, and no MW but 0) is not a project; N/A is no queue id."""
    if qid == "N/A":
        return "no_queue_id"
    if not any((r[col[c]] or "").strip() for c in ("queue date", "county", "state", "fuel", "poi name")) and (r[col["summer mw"]] or "0").strip() in ("0", ""):
        return "placeholder"
    return None


MISO = {"cap": "power.interconnection_queue", "key": "Project #", "headline": "Summer MW", "skip": ("AA1234",),
        "mw": ["Summer MW", "Winter MW", "Decision Point 1 ERIS MW", "Decision Point 1 NRIS MW", "Decision Point 2 ERIS MW", "Decision Point 2 NRIS MW"],
        "status": miso_status, "unmatched": miso_unmatched, "state": miso_state,
        # MISO's queue is of generator interconnection requests and merchant HVDC lines
        "kind": lambda sheet, r, col: "transmission" if r[col["fuel"]] == "High Voltage DC" else "generation"}


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
              "status": pjm_status, "blanks": ("N/A",), "moved": r" - moved to TC[0-9]+$",
              "kind": lambda sheet, r, col: {"Generation Interconnection": "generation", "Merchant Transmission": "transmission"}[r[col["project type"]]]}
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


def nyiso_kind(sheet, r, col):
    """NYISO's Type/ Fuel key: AC and DC are transmission projects, L load; no type, no kind."""
    code = str(r[col["type/ fuel"]] or "").strip()
    return {"AC": "transmission", "DC": "transmission", "L": "load", "": None}.get(code, "generation")


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
              "mw": ["SP (MW)", "WP (MW)"], "status": nyiso_status, "blanks": ("N/A", "TBD"), "kind": nyiso_kind}
        figures(op, path, as_of, tables)


def iso_date(v):
    """A YYYY-MM-DD text date, None otherwise."""
    m = re.match(r"^(\d{4}-\d{2}-\d{2})", str(v or "").strip())
    return m.group(1) if m else None


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
              "mw": ["Net MW", "Summer MW", "Winter MW"], "status": isone_status, "blanks": ("N/A",),
              "kind": lambda sheet, r, col: {"G": "generation", "ETU": "transmission", "TS": "transmission"}[r[col["type"]]],
              "inferred": lambda r, col: r[col["project status"]] is None and r[col["w/ d date"]] is None,
              "in_service": lambda r, col: mdy(r[col["op date"]]) or iso_date(r[col["op date"]])}
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


def grouped(recs, by):
    """project_count and requested_mw by the record member by (None as null); requested_mw
    only when every group publishes some MW."""
    groups = {}
    for rec in recs:
        g = groups.setdefault(rec[by], [0, 0.0, 0])
        g[0] += rec["status"] is not None
        if rec["mw"] is not None:
            g[1] += rec["mw"]
            g[2] += 1
    out = {"project_count": {k: g[0] for k, g in groups.items()}}
    if all(g[2] for g in groups.values()):
        out["requested_mw"] = {k: g[1] for k, g in groups.items()}
    return out


def semantics():
    """Cases of what a queue answer must keep apart or name: request kinds (ISO-NE's Type,
    PJM's Project Type, NYISO's type codes, MISO's HVDC lines), ISO-NE's inferred statuses,
    PJM's serial projects moved to the cycle queue, MISO's placeholder, project without an id
    and states written otherwise. note_figures are what a note says beside its count: the sum
    of the headline MW over the rows it names, and how many are dated before the as_of."""
    def recs(cap, as_of, keep=lambda rec: True):
        return [rec for rec in SNAP_ROWS[(cap, as_of)] if keep(rec)]

    def totals(rs):
        out = {"project_count": sum(1 for rec in rs if rec["status"] is not None)}
        if any(rec["mw"] is not None for rec in rs):
            out["requested_mw"] = sum(rec["mw"] for rec in rs if rec["mw"] is not None)
        return out

    isone, as_of = "power.interconnection_queue_isone", "2025-01-23"
    every = recs(isone, as_of)
    add("isone by request_kind", isone, as_of, {"group_by": ["request_kind"]}, groups=grouped(every, "kind"))
    add("isone by type", isone, as_of, {"group_by": ["type"]}, groups={"project_count": grouped(every, "type")["project_count"]})
    active = recs(isone, as_of, lambda rec: rec["status"] == "active")
    inferred = [rec for rec in active if rec["inferred"]]
    c = {"name": "isone active, inferred statuses noted", "capability": isone, "as_of": as_of, "params": {"filters": {"status": "active"}},
         "totals": totals(active), "notes": {"status_inferred": len(inferred)},
         "note_figures": {"status_inferred": {"sum": sum(rec["mw"] for rec in inferred if rec["mw"] is not None),
                                              "dated_before_as_of": sum(1 for rec in inferred if rec["in_service"] and rec["in_service"] < as_of)}}}
    CASES.append(c)
    add("isone active by request_kind", isone, as_of, {"filters": {"status": "active"}, "group_by": ["request_kind"]}, groups=grouped(active, "kind"))
    add("isone active, published statuses only", isone, as_of, {"filters": {"status": "active", "status_inferred": False}},
        totals([rec for rec in active if not rec["inferred"]]))
    add("isone active transmission", isone, as_of, {"filters": {"status": "active", "request_kind": "transmission"}},
        totals([rec for rec in active if rec["kind"] == "transmission"]))

    pjm, as_of = "power.interconnection_queue_pjm", "2025-01-23"
    every = recs(pjm, as_of)
    active = [rec for rec in every if rec["status"] == "active"]
    moved = [rec for rec in active if rec["moved"]]
    CASES.append({"name": "pjm active, moved to the cycle queue noted", "capability": pjm, "as_of": as_of, "params": {"filters": {"status": "active"}},
                  "totals": totals(active), "notes": {"counted_in_cycle_queue": len(moved)},
                  "note_figures": {"counted_in_cycle_queue": {"sum": sum(rec["mw"] for rec in moved if rec["mw"] is not None)}}})
    add("pjm active, serial projects only", pjm, as_of, {"filters": {"status": "active", "moved_to_cycle": False}},
        totals([rec for rec in active if not rec["moved"]]))
    CASES.append({"name": "pjm every row, moved to the cycle queue noted", "capability": pjm, "as_of": as_of, "params": {},
                  "totals": totals(every), "notes": {"counted_in_cycle_queue": sum(1 for rec in every if rec["moved"])}})
    add("pjm by request_kind", pjm, as_of, {"group_by": ["request_kind"]}, groups=grouped(every, "kind"))
    cycle = "power.interconnection_queue_pjm_cycle"
    add("pjm cycle by request_kind", cycle, "2025-04-18", {"group_by": ["request_kind"]}, groups=grouped(recs(cycle, "2025-04-18"), "kind"))

    nyiso = "power.interconnection_queue_nyiso"
    add("nyiso by request_kind", nyiso, "2025-01-31", {"group_by": ["request_kind"]},
        groups={"project_count": grouped(recs(nyiso, "2025-01-31"), "kind")["project_count"]})

    miso = "power.interconnection_queue"
    for as_of, note in (("2025-01-17", "no_queue_id"), ("2025-05-09", "placeholder_rows")):
        every = recs(miso, as_of)
        t = totals(every)
        t["distinct_states"] = len({rec["state"] for rec in every if rec["state"]})
        defect = {"no_queue_id": "no_queue_id", "placeholder_rows": "placeholder"}[note]
        CASES.append({"name": "miso %s, known defects noted" % as_of, "capability": miso, "as_of": as_of, "params": {},
                      "totals": t, "notes": {note: sum(1 for rec in every if rec["defect"] == defect)}})
        add("miso %s by request_kind" % as_of, miso, as_of, {"group_by": ["request_kind"]}, groups=grouped(every, "kind"))
        add("miso %s by state" % as_of, miso, as_of, {"group_by": ["state"]}, groups={"project_count": grouped(every, "state")["project_count"]})
        active = [rec for rec in every if rec["status"] == "active"]
        add("miso %s active" % as_of, miso, as_of, {"filters": {"status": "active"}}, dict(totals(active), distinct_states=len({rec["state"] for rec in active if rec["state"]})))


def main():
    miso()
    pjm()
    caiso()
    nyiso()
    isone()
    ercot()
    spp()
    status_cases()
    semantics()
    out = sys.stdout
    out.write("[\n")
    out.write(",\n".join(" " + json.dumps(c) for c in CASES))
    out.write("\n]\n")


def snapshot_projects(op, tables, raw_status, state=None, unmatched=None):
    """The projects of one snapshot, key -> record (status, raw status, headline MW and the
    values filters select on), the n-th repeat of an id on a sheet keyed id#n; and the rows
    that cannot be matched (no identity), as records."""
    out, seen, odd = {}, {}, []
    for sheet, (labels, rows) in tables.items():
        col = {" ".join(l.split()).lower(): i for i, l in reversed(list(enumerate(labels))) if l}
        key = col[op["key"].lower()]
        for r in rows:
            if blank(r[key]) or is_note(r) or str(r[key]).strip() in op.get("skip", ()):
                continue
            qid = str(r[key]).strip()
            if isinstance(r[key], float) and r[key].is_integer():
                qid = str(int(r[key]))
            heads = [h.lower() for h in (op["headline"] if isinstance(op["headline"], tuple) else (op["headline"],)) if h.lower() in col]
            mw = num(r[col[heads[0]]], op.get("blanks", ())) if heads else None
            why = unmatched(qid, r, col) if unmatched else None
            rec = {"queue_id": qid, "sheet": sheet, "status": None if why == "placeholder" else op["status"](sheet, r, col),
                   "raw": raw_status(sheet, r, col), "mw": mw, "state": state(r, col) if state else None, "defect": why}
            if why:
                odd.append(rec)
                continue
            seen[(qid, sheet)] = seen.get((qid, sheet), 0) + 1
            k = qid if seen[(qid, sheet)] == 1 else "%s#%d" % (qid, seen[(qid, sheet)])
            out[k] = rec
    return out, odd


def diff(before, after, filters):
    """compare_as_of by set difference: every project classified by its key over both whole
    snapshots, then selected by the filters in either snapshot (entered by the newer, left by
    the older, the others by either)."""
    (b, bodd), (a, aodd) = before, after
    sel = lambda rec: rec is not None and all(rec[f] in (v if isinstance(v, list) else [v]) for f, v in filters.items())
    entered = [k for k in a if k not in b and sel(a[k])]
    left = [k for k in b if k not in a and sel(b[k])]
    both = [k for k in a if k in b and (sel(a[k]) or sel(b[k]))]
    status = [k for k in both if (b[k]["status"], b[k]["raw"]) != (a[k]["status"], a[k]["raw"])]
    withdrawn = [k for k in status if a[k]["status"] == "withdrawn" and b[k]["status"] != "withdrawn"]
    mw = [k for k in both if b[k]["mw"] != a[k]["mw"]]
    return {"summary": {"projects_before": sum(1 for k in b if sel(b[k])), "projects_after": sum(1 for k in a if sel(a[k])),
                        "entered": len(entered), "left": len(left), "status_changed": len(status), "withdrawn_since": len(withdrawn),
                        "mw_changed": len(mw), "unchanged": len([k for k in both if k not in status and k not in mw]),
                        "not_compared": sum(1 for rec in bodd + aodd if sel(rec))},
            "entered": entered, "left": left,
            "not_compared": [rec["queue_id"] for rec in bodd + aodd if sel(rec)]}


def diffs():
    """What changed between snapshots (compare_as_of): the MISO exports unfiltered and under
    filters, the CAISO reports unfiltered; a JSON array of cases."""
    cases = []
    miso = []
    for name in ("GI_Interactive_Queue_2025-01.csv", "GI_Interactive_Queue_2025-05.csv"):
        miso.append(snapshot_projects(MISO, read_csv(os.path.join(RAW, "iso", "miso", name)),
                                      lambda sheet, r, col: r[col["request status"]], miso_state, miso_unmatched))
    for filters in ({}, {"status": "active"}, {"status": "withdrawn"}, {"queue_id": "J3383"}, {"queue_id": "MSG KEEP"},
                    {"queue_id": "N/A"}, {"state": "MI"}, {"state": "AR", "status": "active"}):
        cases.append({"capability": "power.interconnection_queue", "as_of": "2025-05-09", "compare_as_of": "2025-01-17",
                      "params": {"filters": filters} if filters else {}, **diff(miso[0], miso[1], filters)})
    sheets = {"Grid GenerationQueue": (4, 1), "Completed Generation Projects": (4, 1), "Withdrawn Generation Projects": (4, 1)}
    op = {"key": "Queue Position", "headline": "Net MWs to Grid", "status": caiso_status}
    caiso_raw = lambda sheet, r, col: r[col["application status"]]
    snaps = {}
    for name, as_of in (("publicqueuereport-01232025.xlsx", "2025-01-23"), ("publicqueuereport-08112025.xlsx", "2025-08-11"), ("publicqueuereport-08032026.xlsx", "2026-08-03")):
        snaps[as_of] = snapshot_projects(op, read_xlsx(os.path.join(RAW, "iso", "caiso", name), sheets), caiso_raw)
    c15 = read_xlsx(os.path.join(RAW, "iso", "caiso", "cluster-15-interconnection-requests.xlsx"), {"Cluster 15 ": (1, 1), "Withdrawn": (1, 1)})
    more, _ = snapshot_projects({"key": "Queue Number", "headline": "NET MW POI", "status": caiso_status, "blanks": ("N/A",)}, c15,
                                lambda sheet, r, col: "Cluster 15" if sheet == "Cluster 15 " else "Withdrawn")
    snaps["2026-08-03"][0].update(more)
    for as_of, other, older, newer in (("2025-08-11", "2025-01-23", "2025-01-23", "2025-08-11"), ("2026-08-03", "2025-08-11", "2025-08-11", "2026-08-03"),
                                       ("2025-01-23", "2026-08-03", "2025-01-23", "2026-08-03")):
        cases.append({"capability": "power.interconnection_queue_caiso", "as_of": as_of, "compare_as_of": other, "params": {},
                      **diff(snaps[older], snaps[newer], {})})
    return cases


if __name__ == "__main__":
    if sys.argv[1:2] == ["--diff"]:
        out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
        json.dump(diffs(), out, indent=1)
        out.write("\n")
    else:
        main()
