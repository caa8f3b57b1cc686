#!/usr/bin/python3
"""Writes testdata/golden/notes/notes.json: the figures behind the notes of answers whose totals are
not what they look like, read straight from the raw files without any citeq code.

    /usr/bin/python3 testdata/golden/compute_notes.py [OUTPUT]

Readers: the standard library only. xlsx: zipfile and re over the workbook's XML (shared
strings, workbook and sheet parts). xls (the EIA natural gas workbooks, BIFF8): the compound
file is read sector by sector (header, FAT, directory) and the Workbook stream record by record
(BOUNDSHEET, SST with its CONTINUE records, LABELSST, LABEL, NUMBER, RK, MULRK). CSV: csv. The
interconnection queues' status rules and row tests are those of compute_queues.py (imported;
its openpyxl reader is replaced by the xlsx reader here). Sums use math.fsum.

Each case: the capability, as_of, query params, the totals expected (null_totals: the totals
that must be null), the notes expected on the summary (code and the members to check) and the
notes expected on rows (by the value of the first group_by dimension).
"""
import csv
import datetime
import json
import math
import os
import re
import struct
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RAW = os.environ.get("CITEQ_RAW") or os.path.join(ROOT, "..", "shared", "data", "raw")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "notes", "notes.json")

cases = []


def clean(x):
    if isinstance(x, float) and x == int(x) and abs(x) < 2**53:
        return int(x)
    return x


def case(name, cap, as_of, params, totals=None, null_totals=None, notes=None, rows=None, absent=None):
    c = {"name": name, "capability": cap, "as_of": as_of, "params": params}
    if totals:
        c["totals"] = {k: clean(v) for k, v in totals.items()}
    if null_totals:
        c["null_totals"] = null_totals
    c["notes"] = notes or []
    if absent:
        c["absent"] = absent
    if rows:
        c["rows"] = rows
    cases.append(c)


# ---------------------------------------------------------------------------------------
# xlsx: the cells of one sheet, by row number and column letters, as text.

def xlsx_sheet(path, name):
    z = zipfile.ZipFile(path)
    strings = []
    if "xl/sharedStrings.xml" in z.namelist():
        ss = z.read("xl/sharedStrings.xml").decode("utf-8")
        for si in re.finditer(r"<si>(.*?)</si>", ss, re.S):
            strings.append("".join(t for t in re.findall(r"<t[^>]*>(.*?)</t>", si.group(1), re.S)))
    wb = z.read("xl/workbook.xml").decode("utf-8")
    rels = z.read("xl/_rels/workbook.xml.rels").decode("utf-8")
    target = None
    for m in re.finditer(r'<sheet [^>]*?name="([^"]*)"[^>]*?r:id="([^"]*)"', wb):
        if unescape(m.group(1)) == name:
            rid = m.group(2)
            t = re.search(r'<Relationship [^>]*Id="%s"[^>]*Target="([^"]*)"' % re.escape(rid), rels) or \
                re.search(r'<Relationship [^>]*Target="([^"]*)"[^>]*Id="%s"' % re.escape(rid), rels)
            target = t.group(1).lstrip("/")
            if not target.startswith("xl/"):
                target = "xl/" + target
    if target is None:
        raise KeyError("%s: no sheet %r" % (path, name))
    xml = z.read(target).decode("utf-8")
    out = {}
    for r in re.finditer(r'<row r="(\d+)"[^>]*?(?:/>|>(.*?)</row>)', xml, re.S):
        cells = {}
        for c in re.finditer(r'<c r="([A-Z]+)\d+"([^>]*?)(?:/>|>(.*?)</c>)', r.group(2) or "", re.S):
            col, attrs, body = c.groups()
            v = re.search(r"<v>(.*?)</v>", body or "", re.S)
            t = re.findall(r"<t[^>]*>(.*?)</t>", body or "", re.S)
            val = v.group(1) if v else "".join(t)
            if 't="s"' in attrs and v:
                val = strings[int(val)]
            cells[col] = unescape(val)
        out[int(r.group(1))] = cells
    return out


def unescape(s):
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'").replace("&amp;", "&")


def col_index(letters):
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def read_xlsx(path, sheets):
    """compute_queues.read_xlsx, with this module's reader: name -> (labels, data rows)."""
    out = {}
    for name, (hrow, span) in sheets.items():
        try:
            cells = xlsx_sheet(path, name)
        except KeyError:
            continue
        last = max(cells) if cells else 0
        width = max((col_index(c) + 1 for r in cells.values() for c in r), default=0)
        rows = []
        for n in range(1, last + 1):
            row = [None] * width
            for c, v in cells.get(n, {}).items():
                row[col_index(c)] = v
            rows.append(row)
        labels = [""] * width
        for r in rows[hrow - 1:hrow - 1 + span]:
            for i, v in enumerate(r):
                if v is not None and str(v).strip():
                    labels[i] = (labels[i] + " " + " ".join(str(v).split())).strip()
        out[name] = (labels, rows[hrow - 1 + span:])
    return out


# ---------------------------------------------------------------------------------------
# xls (BIFF8 in a compound file): the cells of one sheet, by (row, column), 0-based.

def cfb_stream(path, want):
    data = open(path, "rb").read()
    assert data[:8] == bytes.fromhex("D0CF11E0A1B11AE1"), path
    ssz = 1 << struct.unpack_from("<H", data, 0x1E)[0]
    msz = 1 << struct.unpack_from("<H", data, 0x20)[0]
    nfat, dir0 = struct.unpack_from("<II", data, 0x2C)
    cutoff, minifat0, _, difat0, ndifat = struct.unpack_from("<IIIII", data, 0x38)

    def sector(i):
        return data[512 + i * ssz:512 + (i + 1) * ssz]
    difat = list(struct.unpack_from("<109I", data, 0x4C))
    d = difat0
    for _ in range(ndifat):
        s = sector(d)
        entries = struct.unpack_from("<%dI" % (ssz // 4), s)
        difat += entries[:-1]
        d = entries[-1]
    fat = []
    for i in difat[:nfat]:
        fat += struct.unpack_from("<%dI" % (ssz // 4), sector(i))

    def chain(start):
        out, s = [], start
        while s < 0xFFFFFFFA:
            out.append(s)
            s = fat[s]
        return out
    dirs = b"".join(sector(s) for s in chain(dir0))
    entries = []
    for off in range(0, len(dirs), 128):
        e = dirs[off:off + 128]
        n = struct.unpack_from("<H", e, 0x40)[0]
        name = e[:max(n - 2, 0)].decode("utf-16-le")
        entries.append((name, e[0x42], struct.unpack_from("<I", e, 0x74)[0], struct.unpack_from("<I", e, 0x78)[0]))
    root = entries[0]
    for name, kind, start, size in entries:
        if name != want:
            continue
        if size >= cutoff:
            return b"".join(sector(s) for s in chain(start))[:size]
        ministream = b"".join(sector(s) for s in chain(root[2]))
        minifat = []
        for s in chain(minifat0):
            minifat += struct.unpack_from("<%dI" % (ssz // 4), sector(s))
        out, s = [], start
        while s < 0xFFFFFFFA:
            out.append(ministream[s * msz:(s + 1) * msz])
            s = minifat[s]
        return b"".join(out)[:size]
    raise KeyError("%s: no stream %s" % (path, want))


def rk(v):
    if v & 2:
        x = float(v >> 2 if v < 0x80000000 else (v >> 2) - (1 << 30))
    else:
        x = struct.unpack("<d", struct.pack("<Q", (v & 0xFFFFFFFC) << 32))[0]
    return x / 100 if v & 1 else x


def records(stream, pos=0):
    while pos + 4 <= len(stream):
        typ, n = struct.unpack_from("<HH", stream, pos)
        yield pos, typ, stream[pos + 4:pos + 4 + n]
        pos += 4 + n


def sst_strings(chunks):
    """The shared strings of an SST record and its CONTINUE records (a string's characters
    that cross into a CONTINUE record restart there with a flags byte)."""
    out = []
    ci, pos = 0, 8
    total = struct.unpack_from("<I", chunks[0], 4)[0]

    def take(n):
        nonlocal ci, pos
        b = b""
        while n > 0:
            if pos >= len(chunks[ci]):
                ci, pos = ci + 1, 0
            k = min(n, len(chunks[ci]) - pos)
            b += chunks[ci][pos:pos + k]
            pos += k
            n -= k
        return b
    for _ in range(total):
        if pos >= len(chunks[ci]):
            ci, pos = ci + 1, 0
        cch, flags = struct.unpack("<HB", take(3))
        runs = struct.unpack("<H", take(2))[0] if flags & 8 else 0
        ext = struct.unpack("<I", take(4))[0] if flags & 4 else 0
        s, left, wide = "", cch, flags & 1
        while left > 0:
            if pos >= len(chunks[ci]):
                ci, pos = ci + 1, 0
                wide = chunks[ci][0] & 1
                pos = 1
            avail = (len(chunks[ci]) - pos) // (2 if wide else 1)
            k = min(left, avail)
            raw = take(k * (2 if wide else 1))
            s += raw.decode("utf-16-le" if wide else "latin-1")
            left -= k
        take(4 * runs + ext)
        out.append(s)
    return out


def xls_sheet(path, name):
    wb = cfb_stream(path, "Workbook")
    sheets, sst = {}, []
    chunks, in_sst = None, False
    for pos, typ, d in records(wb):
        if typ == 0x0085:
            n, flags = d[6], d[7]
            sheets[d[8:8 + (2 * n if flags & 1 else n)].decode("utf-16-le" if flags & 1 else "latin-1")] = struct.unpack_from("<I", d, 0)[0]
        elif typ == 0x00FC:
            chunks, in_sst = [d], True
        elif typ == 0x003C and in_sst:
            chunks.append(d)
        else:
            if in_sst:
                sst, in_sst = sst_strings(chunks), False
            if typ == 0x000A and sheets and pos > min(sheets.values()):
                break
    cells = {}
    for pos, typ, d in records(wb, sheets[name]):
        if typ == 0x000A:
            break
        if typ == 0x00FD:
            r, c, _, i = struct.unpack_from("<HHHI", d)
            cells[(r, c)] = sst[i]
        elif typ == 0x0203:
            r, c, _, x = struct.unpack_from("<HHHd", d)
            cells[(r, c)] = x
        elif typ == 0x027E:
            r, c, _, v = struct.unpack_from("<HHHI", d)
            cells[(r, c)] = rk(v)
        elif typ == 0x00BD:
            r, c0 = struct.unpack_from("<HH", d)
            for k in range((len(d) - 6) // 6):
                cells[(r, c0 + k)] = rk(struct.unpack_from("<I", d, 4 + 6 * k + 2)[0])
        elif typ == 0x0204:
            r, c, _, n, flags = struct.unpack_from("<HHHHB", d)
            cells[(r, c)] = d[9:9 + (2 * n if flags & 1 else n)].decode("utf-16-le" if flags & 1 else "latin-1")
    return cells


def excel_date(serial):
    return (datetime.date(1899, 12, 30) + datetime.timedelta(days=int(serial))).isoformat()


def series(path, key, monthly):
    """Sheet Data 1 of an EIA price workbook: (period, value or None) of the series whose
    source key (row 2) is key; periods YYYY-MM (monthly) or YYYY-MM-DD (daily)."""
    cells = xls_sheet(path, "Data 1")
    col = next(c for (r, c), v in cells.items() if r == 1 and v == key)
    out = []
    last = max(r for r, _ in cells)
    for r in range(3, last + 1):
        d = cells.get((r, 0))
        if not isinstance(d, float):
            continue
        day = excel_date(d)
        v = cells.get((r, col))
        out.append((day[:7] if monthly else day, v if isinstance(v, float) else None))
    return out


# ---------------------------------------------------------------------------------------
# ai_infrastructure.construction: privsatime.xlsx, sheet Private SA; the month in column A
# ("Jan-25", "May-26p"), the line headers in row 4 (footnote digits dropped).

MONTHS = {m: i for i, m in enumerate(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1)}


def c30_line(line):
    path = os.path.join(RAW, "aiinfra_robotics", "census_c30", "privsatime.xlsx")
    z = zipfile.ZipFile(path)
    names = re.findall(r'<sheet [^>]*name="([^"]*)"', z.read("xl/workbook.xml").decode("utf-8"))
    cells = xlsx_sheet(path, unescape(names[0]))
    head = {c: re.sub(r"([A-Za-z)])\d$", r"\1", " ".join(v.replace("_x000D_", " ").split())) for c, v in cells[4].items()}
    col = next(c for c, h in head.items() if h == line)
    out = []
    for n in sorted(cells):
        m = re.match(r"^([A-Z][a-z]{2})-(\d{2})([pr]?)$", cells[n].get("A", ""))
        if not m or cells[n].get(col, "") == "":
            continue
        yy = int(m.group(2))
        out.append(("%d-%02d" % (1900 + yy if yy >= 50 else 2000 + yy, MONTHS[m.group(1)]), float(cells[n][col])))
    return out


def construction():
    cap, as_of = "ai_infrastructure.construction", "2026-07-01"
    dc = [(p, v) for p, v in c30_line("Data center") if p >= "2025-01"]
    vals = [v for _, v in dc]
    case("C30 Data center since 2025-01: no sum of SAAR over 17 months", cap, as_of,
         {"filters": {"line": "Data center"}, "observation_date_from": "2025-01"},
         totals={"avg_value_musd": math.fsum(vals) / len(vals), "min_value_musd": min(vals), "max_value_musd": max(vals), "observation_count": len(vals)},
         null_totals=["sum_value_musd"],
         notes=[{"code": "not_additive_over_time", "metric": "sum_value_musd", "periods": len({p for p, _ in dc})}])
    last = max(p for p, _ in dc)
    case("C30 Data center one month: the sum stands", cap, as_of,
         {"filters": {"line": "Data center"}, "observation_date_from": last, "observation_date_to": last},
         totals={"sum_value_musd": math.fsum(v for p, v in dc if p == last), "observation_count": 1}, absent=["not_additive_over_time"])
    y25 = [(p, v) for p, v in dc if p.startswith("2025")]
    case("C30 Data center 2025 by period: each month's sum", cap, as_of,
         {"filters": {"line": "Data center", "year": 2025}, "group_by": ["period"]},
         null_totals=["sum_value_musd"],
         notes=[{"code": "not_additive_over_time", "metric": "sum_value_musd", "periods": len(y25)}],
         rows={p: {"metrics": {"sum_value_musd": v}} for p, v in y25})


# ---------------------------------------------------------------------------------------
# robotics.adoption: the NCSES CSVs. The share of all companies using autonomous systems and
# robotics in 2021 is published twice: table 11305 (by sector), row "Autonomous systems and
# robotics", column all_industries; table 12515 (by industry), row "All industries", column
# field_autonomous_systems_and_robotics.

def ncses(table):
    import glob
    path = glob.glob(os.path.join(RAW, "aiinfra_robotics", "ncses_abs", "ncses_%s_*.csv" % table))[0]
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def share(cell):
    m = re.match(r"^\['([^']*)', '([^']*)'\]$", cell.strip())
    return float((m.group(1) if m else cell).strip().replace(",", ""))


def adoption():
    cap, as_of = "robotics.adoption", "2021-12-31"
    a = [share(r["all_industries"]) for r in ncses("11305") if r["technology"] == "Autonomous systems and robotics"]
    b = [share(r["field_autonomous_systems_and_robotics"]) for r in ncses("12515") if r["industry_full_path"] == "All industries"]
    vals = a + b
    case("robotics: two published shares of all companies are not averaged", cap, as_of,
         {"filters": {"technology": "Autonomous systems and robotics", "response": "using", "industry": "All industries"}},
         totals={"min_value": min(vals), "max_value": max(vals), "value_count": len(vals)},
         null_totals=["avg_value"],
         notes=[{"code": "share_not_averaged", "metric": "avg_value", "shares": len(vals)},
                {"code": "mixed_partition", "dimension": "breakdown"}])
    manu = {r["technology"]: share(r["manufacturing_industries"]) for r in ncses("11305")}
    case("robotics: 11305 manufacturing by technology, one share a group", cap, as_of,
         {"filters": {"table_id": "11305", "industry": "Manufacturing industries"}, "group_by": ["technology"]},
         totals={"value_count": len(manu)}, null_totals=["avg_value"],
         notes=[{"code": "share_not_averaged", "metric": "avg_value", "shares": len(manu)}],
         rows={t: {"metrics": {"avg_value": v}} for t, v in manu.items()})
    # Every cell of the 2021 robotics table by industry: counts and percents mix units, so the
    # averages are null and the mixed_partition note says so rather than "totals add them".
    rows11547 = ncses("11547")
    counts = sum(1 for r in rows11547 if r.get("field_companies_number_", "").strip() not in ("", "&nbsp;"))
    case("robotics: measures mixed, the partition note says what the totals did", cap, as_of,
         {"filters": {"table_id": "11547"}},
         null_totals=["avg_value", "min_value", "max_value"],
         notes=[{"code": "mixed_partition", "dimension": "measure", "says": "while avg_value, min_value, max_value are null",
                 "values": {"companies_number": counts}}])


# ---------------------------------------------------------------------------------------
# natural_gas.prices: the state workbook (N3045<state>3, USD/Mcf) and Henry Hub daily.

def gas():
    cap, as_of = "natural_gas.prices", "2024-07-10"
    ng = os.path.join(RAW, "eia", "ng_prices")
    cells = xls_sheet(os.path.join(ng, "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"), "Data 1")
    keys = {c: v for (r, c), v in cells.items() if r == 1 and isinstance(v, str) and re.match(r"^N3045[A-Z]{2}3$", v) and v != "N3045US3"}
    present, blank, rows = {}, {}, 0
    for (r, c), d in cells.items():
        if c != 0 or not isinstance(d, float) or not excel_date(d).startswith("2022"):
            continue
        for col, key in keys.items():
            st = key[5:7]
            rows += 1
            v = cells.get((r, col))
            if isinstance(v, float):
                present[st] = present.get(st, 0) + 1
            else:
                blank.setdefault(st, []).append(excel_date(d)[:7])
                present.setdefault(st, 0)
    most = max(present.values())
    want = {st: {"notes": [{"code": "periods_present", "periods": n, "most": most}]} for st, n in present.items() if st in ("AZ", "ND", "CA", "HI")}
    case("gas: states ranked by 2022 price, periods present per state", cap, as_of,
         {"filters": {"atom": "state_electric_power_monthly", "year": 2022}, "group_by": ["area"], "order_by": "avg_price"},
         totals={"source_record_count": rows, "observation_count": sum(present.values())},
         notes=[{"code": "unequal_coverage", "fewest": min(present.values()), "most": most},
                {"code": "values_missing", "column": "price", "rows": sum(len(b) for b in blank.values()), "matched_rows": rows}],
         rows=want)
    ca = [v for p, v in series(os.path.join(ng, "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"), "N3045CA3", True) if p.startswith("2022")]
    case("gas: California 2022, blank months counted", cap, as_of,
         {"filters": {"atom": "state_electric_power_monthly", "area": "CA", "year": 2022}},
         totals={"avg_price": math.fsum(v for v in ca if v is not None) / sum(1 for v in ca if v is not None), "observation_count": sum(1 for v in ca if v is not None)},
         notes=[{"code": "values_missing", "column": "price", "rows": sum(1 for v in ca if v is None), "matched_rows": len(ca),
                 "first": ["N3045CA3:" + p for p, v in series(os.path.join(ng, "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"), "N3045CA3", True) if p.startswith("2022") and v is None]}])
    hh = [(p, v) for p, v in series(os.path.join(ng, "RNGWHHDd.xls"), "RNGWHHD", False) if p.startswith("2018")]
    nn = [v for _, v in hh if v is not None]
    case("gas: Henry Hub 2018, one blank trading day", cap, as_of,
         {"filters": {"atom": "henry_hub_daily_spot", "year": 2018}},
         totals={"avg_price": math.fsum(nn) / len(nn), "observation_count": len(nn), "source_record_count": len(hh)},
         notes=[{"code": "values_missing", "column": "price", "rows": len(hh) - len(nn), "matched_rows": len(hh),
                 "first": ["RNGWHHD:" + p for p, v in hh if v is None]}])


# ---------------------------------------------------------------------------------------
# Interconnection queues: PJM's projects without MW, MISO's active requests without a fuel.

def queues():
    sys.path.insert(0, HERE)
    import compute_queues as q
    q.read_xlsx = read_xlsx
    path = os.path.join(RAW, "iso", "pjm", "PlanningQueues_2025-01.xlsx")
    labels, rows = q.read_xlsx(path, {"Data": (1, 1)})["Data"]
    col = {" ".join(l.split()).lower(): i for i, l in reversed(list(enumerate(labels))) if l}
    projects = [r for r in rows if not q.blank(r[col["project id"]]) and not q.is_note(r)]
    blank = [r for r in projects if q.num(r[col["mw energy"]], ("N/A",)) is None]
    case("PJM: projects without MW are counted in a note", "power.interconnection_queue_pjm", "2025-01-23", {},
         totals={"project_count": len(projects), "requested_mw": math.fsum(q.num(r[col["mw energy"]], ("N/A",)) for r in projects if r not in blank)},
         notes=[{"code": "values_missing", "column": "requested_mw", "rows": len(blank), "matched_rows": len(projects),
                 "metrics": ["requested_mw", "mean_requested_mw", "median_requested_mw"]}])
    path = os.path.join(RAW, "iso", "miso", "GI_Interactive_Queue_2025-05.csv")
    labels, rows = q.read_csv(path)["csv"]
    col = {" ".join(l.split()).lower(): i for i, l in reversed(list(enumerate(labels))) if l}
    # The placeholder row (compute_queues.miso_unmatched: no date, place or fuel, 0 MW) is not a
    # project: it has no status.
    active = [r for r in rows if not q.blank(r[col["project #"]]) and not q.is_note(r) and r[col["project #"]].strip() not in q.MISO["skip"]
              and q.miso_status("csv", r, col) == "active" and q.miso_unmatched(r[col["project #"]].strip(), r, col) != "placeholder"]
    nofuel = [r for r in active if q.blank(r[col["fuel"]])]
    case("MISO: active requests with no fuel form a noted null group", "power.interconnection_queue", "2025-05-09",
         {"filters": {"status": "active"}, "group_by": ["generation_type"]},
         totals={"project_count": len(active)},
         notes=[{"code": "null_group_key", "dimension": "generation_type", "rows": len(nofuel), "blank_in_source": len(nofuel)}],
         rows={"null": {"metrics": {"project_count": len(nofuel), "requested_mw": math.fsum(q.num(r[col["summer mw"]]) or 0 for r in nofuel)}}})


def main():
    construction()
    adoption()
    gas()
    queues()
    with open(OUT, "w") as f:
        f.write("[\n")
        f.write(",\n".join(" " + json.dumps(c) for c in cases))
        f.write("\n]\n")
    print("%d cases written to %s" % (len(cases), OUT))


if __name__ == "__main__":
    main()
