#!/usr/bin/python3
"""Writes testdata/golden/docsets.json: the answers of the capabilities whose documents
complement each other, read straight from the raw files without any citeq code.

    /usr/bin/python3 testdata/golden/compute_docsets.py [OUTPUT]

Readers: the standard library only. An .xlsx is read with zipfile and re over its XML (shared
strings, the sheets by the workbook's relationships); an .xls (BIFF8 inside an OLE2 compound
file) with the small reader below (struct over the compound file's sectors and the BIFF
records: SST with its CONTINUE records, LABELSST, LABEL, NUMBER, RK, MULRK, FORMULA); a CSV with
csv. Sums use math.fsum; percentiles are the linear (type 7) definition in exact fractions.

Cases (posted to the API by api TestGoldenTotals; "coverage" is read by the tests of the
partial_period note):
  - power.price_ercot at the latest as_of, 2025-05-17: both workbooks together, each year and
    HB_NORTH alone; the coverage of 2025 and May 2025 by the year-to-date workbook. The cases
    of markets.json over the 2025 workbook (now filtered to year 2025) are recomputed here and
    must agree.
  - natural_gas.prices, N3045US3: each month from the newest release that publishes a row for
    it (the state workbook NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls, released 2023-02-28, over the U.S.
    summary NG_PRI_SUM_DCU_NUS_M.xls, released 2022-04-29), at as_of 2024-07-10; the U.S.
    summary alone at as_of 2022-04-29; each month the two releases give different values, at
    both as_of dates.
  - power.demand and power.demand_rollup: the periods the EIA-930 CSV covers only in part,
    with their hours present and expected.
  - power.generation: the year the EIA API response of Colorado 2022 covers in part.
"""
import calendar
import csv
import datetime
import json
import math
import os
import re
import statistics
import struct
import sys
import zipfile
from fractions import Fraction
from zoneinfo import ZoneInfo

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RAW = os.environ.get("CITEQ_RAW") or os.path.join(ROOT, "..", "shared", "data", "raw")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "testdata", "golden", "docsets.json")


def clean(x):
    if isinstance(x, float) and x == int(x) and abs(x) < 2**53:
        return int(x)
    return x


# ---------------------------------------------------------------- xlsx (zipfile + re)

def xlsx_sheets(path):
    """{sheet name: [(row number, {column letters: text})]} of every sheet."""
    z = zipfile.ZipFile(path)
    strings = []
    if "xl/sharedStrings.xml" in z.namelist():
        ss = z.read("xl/sharedStrings.xml").decode("utf-8")
        for si in re.finditer(r"<si>(.*?)</si>", ss, re.S):
            strings.append(unescape("".join(re.findall(r"<t[^>]*>(.*?)</t>", si.group(1), re.S))))
    wb = z.read("xl/workbook.xml").decode("utf-8")
    rels = z.read("xl/_rels/workbook.xml.rels").decode("utf-8")
    target = {m.group(1): m.group(2) for m in re.finditer(r'<Relationship[^>]*Id="([^"]+)"[^>]*Target="([^"]+)"', rels)}
    target.update({m.group(2): m.group(1) for m in re.finditer(r'<Relationship[^>]*Target="([^"]+)"[^>]*Id="([^"]+)"', rels)})
    out = {}
    for m in re.finditer(r'<sheet [^>]*name="([^"]+)"[^>]*r:id="([^"]+)"', wb):
        name, rid = unescape(m.group(1)), m.group(2)
        t = target[rid].lstrip("/")
        xml = z.read(t if t.startswith("xl/") else "xl/" + t).decode("utf-8")
        rows = []
        for r in re.finditer(r'<row r="(\d+)"[^>]*>(.*?)</row>', xml, re.S):
            cells = {}
            for c in re.finditer(r'<c r="([A-Z]+)\d+"([^>]*?)(?:/>|>(.*?)</c>)', r.group(2), re.S):
                col, attrs, body = c.groups()
                v = re.search(r"<v>(.*?)</v>", body or "")
                t = re.search(r"<t[^>]*>(.*?)</t>", body or "", re.S)
                val = v.group(1) if v else (t.group(1) if t else "")
                if 't="s"' in attrs and v:
                    val = strings[int(val)]
                cells[col] = unescape(val)
            rows.append((int(r.group(1)), cells))
        out[name] = rows
    return out


def unescape(s):
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'").replace("&amp;", "&")


# ---------------------------------------------------------------- xls (OLE2 + BIFF8)

def cfb_stream(path, want=("Workbook", "Book")):
    """The bytes of the workbook stream of an OLE2 compound file."""
    data = open(path, "rb").read()
    assert data[:8] == bytes.fromhex("D0CF11E0A1B11AE1"), path
    ssz = 1 << struct.unpack_from("<H", data, 30)[0]
    mssz = 1 << struct.unpack_from("<H", data, 32)[0]
    first_dir, = struct.unpack_from("<I", data, 48)
    cutoff, first_mfat, n_mfat, first_difat, n_difat = struct.unpack_from("<IIIII", data, 56)
    difat = list(struct.unpack_from("<109I", data, 76))
    sec = first_difat
    for _ in range(n_difat):
        entries = struct.unpack_from("<%dI" % (ssz // 4), data, (sec + 1) * ssz)
        difat += entries[:-1]
        sec = entries[-1]
    fat = []
    for s in difat:
        if s >= 0xFFFFFFFA:
            continue
        fat += struct.unpack_from("<%dI" % (ssz // 4), data, (s + 1) * ssz)

    def chain(start, table, size, base):
        out, s = [], start
        while s < 0xFFFFFFFA:
            out.append(base(s)[:size])
            s = table[s]
        return b"".join(out)

    def sector(s):
        return data[(s + 1) * ssz:(s + 2) * ssz]

    dirs = chain(first_dir, fat, ssz, sector)
    entries = []
    for i in range(0, len(dirs), 128):
        e = dirs[i:i + 128]
        n, = struct.unpack_from("<H", e, 64)
        name = e[:max(n - 2, 0)].decode("utf-16-le")
        start, size = struct.unpack_from("<IQ", e, 116)
        entries.append((name, e[66], start, size & 0xFFFFFFFF))
    root = entries[0]
    for name, kind, start, size in entries:
        if name in want and kind == 2:
            if size >= cutoff:
                return chain(start, fat, ssz, sector)[:size]
            mini = chain(root[2], fat, ssz, sector)
            mfat = []
            s = first_mfat
            while s < 0xFFFFFFFA:
                mfat += struct.unpack_from("<%dI" % (ssz // 4), data, (s + 1) * ssz)
                s = fat[s]
            return chain(start, mfat, mssz, lambda m: mini[m * mssz:(m + 1) * mssz])[:size]
    raise ValueError("no workbook stream in " + path)


def rk_value(rk):
    if rk & 2:
        v = rk >> 2
        if v & (1 << 29):
            v -= 1 << 30
        v = float(v)
    else:
        v, = struct.unpack("<d", struct.pack("<Q", (rk & 0xFFFFFFFC) << 32))
    return v / 100 if rk & 1 else v


class Pieces:
    """Reads bytes across a record and its CONTINUE records; a string's characters that cross
    into a CONTINUE record start there with a new option byte (compressed or UTF-16)."""

    def __init__(self, parts):
        self.parts, self.i, self.p = parts, 0, 0

    def bytes(self, n):
        out = b""
        while n > 0:
            part = self.parts[self.i]
            if self.p >= len(part):
                self.i, self.p = self.i + 1, 0
                continue
            take = min(n, len(part) - self.p)
            out += part[self.p:self.p + take]
            self.p += take
            n -= take
        return out

    def chars(self, n, high):
        out = []
        while n > 0:
            part = self.parts[self.i]
            if self.p >= len(part):
                self.i, self.p = self.i + 1, 0
                high = self.parts[self.i][0] & 1
                self.p = 1
                continue
            width = 2 if high else 1
            take = min(n, (len(part) - self.p) // width)
            raw = part[self.p:self.p + take * width]
            out.append(raw.decode("utf-16-le" if high else "latin-1"))
            self.p += take * width
            n -= take
        return "".join(out)


def unicode_string(rd):
    cch, = struct.unpack("<H", rd.bytes(2))
    flags = rd.bytes(1)[0]
    runs = struct.unpack("<H", rd.bytes(2))[0] if flags & 8 else 0
    ext = struct.unpack("<I", rd.bytes(4))[0] if flags & 4 else 0
    s = rd.chars(cch, flags & 1)
    rd.bytes(4 * runs + ext)
    return s


def xls_sheets(path):
    """{sheet name: {(row, col): value}} (0-based), numbers as floats and text as str."""
    wb = cfb_stream(path)
    recs, pos = [], 0
    while pos + 4 <= len(wb):
        typ, n = struct.unpack_from("<HH", wb, pos)
        recs.append((typ, pos, wb[pos + 4:pos + 4 + n]))
        pos += 4 + n
    sst, sheets = [], []
    for k, (typ, at, body) in enumerate(recs):
        if typ == 0x0085:
            off, = struct.unpack_from("<I", body, 0)
            cch, flags = body[6], body[7]
            name = body[8:8 + cch * (2 if flags & 1 else 1)].decode("utf-16-le" if flags & 1 else "latin-1")
            sheets.append((name, off))
        elif typ == 0x00FC:
            parts = [body]
            j = k + 1
            while recs[j][0] == 0x003C:
                parts.append(recs[j][2])
                j += 1
            rd = Pieces(parts)
            _, unique = struct.unpack("<II", rd.bytes(8))
            sst = [unicode_string(rd) for _ in range(unique)]
    index = {at: k for k, (_, at, _) in enumerate(recs)}
    out = {}
    for name, off in sheets:
        cells = {}
        k = index[off] + 1
        pending = None
        while recs[k][0] != 0x000A:
            typ, _, b = recs[k]
            if typ == 0x00FD:
                r, c, _, i = struct.unpack_from("<HHHI", b)
                cells[(r, c)] = sst[i]
            elif typ == 0x0203:
                r, c, _, v = struct.unpack_from("<HHHd", b)
                cells[(r, c)] = v
            elif typ == 0x027E:
                r, c, _, rk = struct.unpack_from("<HHHI", b)
                cells[(r, c)] = rk_value(rk)
            elif typ == 0x00BD:
                r, c = struct.unpack_from("<HH", b)
                for j in range((len(b) - 6) // 6):
                    _, rk = struct.unpack_from("<HI", b, 4 + 6 * j)
                    cells[(r, c + j)] = rk_value(rk)
            elif typ == 0x0204:
                r, c, _ = struct.unpack_from("<HHH", b)
                cells[(r, c)] = unicode_string(Pieces([b[6:]]))
            elif typ == 0x0006:
                r, c, _ = struct.unpack_from("<HHH", b)
                if b[12:14] == b"\xff\xff":
                    pending = (r, c) if b[6] == 0 else None
                else:
                    cells[(r, c)], = struct.unpack_from("<d", b, 6)
            elif typ == 0x0207 and pending:
                cells[pending] = unicode_string(Pieces([b]))
                pending = None
            k += 1
        out[name] = cells
    return out


def excel_date(serial):
    return datetime.date(1899, 12, 30) + datetime.timedelta(days=int(serial))


def release_date(sheets):
    for (r, c), v in sheets["Contents"].items():
        if isinstance(v, str) and v.strip() == "Release Date:":
            x = sheets["Contents"][(r, c + 1)]
            if isinstance(x, float):
                return excel_date(x).isoformat()
            m, d, y = (int(p) for p in x.strip().split("/"))
            return datetime.date(y, m, d).isoformat()
    raise ValueError("no release date")


def monthly_series(path, key):
    """{YYYY-MM: price or None} of series key on sheet Data 1 (sourcekeys in row 2, data from
    row 4, the date cell on the 15th), and the workbook's release date."""
    sheets = xls_sheets(path)
    data = sheets["Data 1"]
    col = next(c for (r, c), v in data.items() if r == 1 and v == key)
    out = {}
    rows = sorted({r for (r, c) in data if r >= 3})
    for r in rows:
        d = data.get((r, 0))
        if not isinstance(d, float):
            continue
        day = excel_date(d)
        assert day.day == 15, day
        v = data.get((r, col))
        out[day.strftime("%Y-%m")] = v if isinstance(v, float) else None
    return out, release_date(sheets)


# ---------------------------------------------------------------- helpers

def percentile(vals, p):
    xs = sorted(Fraction(v) for v in vals)
    h = Fraction(len(xs) - 1) * Fraction(p) / 100
    j = int(h)
    if j >= len(xs) - 1:
        return float(xs[-1])
    return float(xs[j] + (h - j) * (xs[j + 1] - xs[j]))


def price_stats(vals):
    return {"avg_price": math.fsum(vals) / len(vals), "min_price": min(vals), "max_price": max(vals)}


def case(name, cap, as_of, params, totals=None, groups=None, coverage=None):
    c = {"name": name, "capability": cap, "as_of": as_of, "params": params}
    if totals is not None:
        c["totals"] = {k: clean(v) for k, v in totals.items()}
    if groups is not None:
        c["groups"] = {m: {k: clean(v) for k, v in g.items()} for m, g in groups.items()}
    if coverage is not None:
        c["coverage"] = coverage
    return c


# ---------------------------------------------------------------- ERCOT

def ercot_rows(name):
    """(date, hour ending, flag, point, price) of every month sheet's data rows."""
    out = []
    for sheet, rows in xlsx_sheets(os.path.join(RAW, "iso", "ercot", name)).items():
        for n, cells in rows:
            if n == 1:
                assert cells.get("A") == "Delivery Date" and cells.get("E") == "Settlement Point Price", (sheet, cells)
                continue
            if not cells.get("A"):
                continue
            m, d, y = (int(x) for x in cells["A"].split("/"))
            out.append((datetime.date(y, m, d), int(cells["B"][:2]), cells["C"], cells["D"], float(cells["E"])))
    return out


def ercot_cases():
    y24, y25 = ercot_rows("DAMLZHBSPP_2024.xlsx"), ercot_rows("DAMLZHBSPP_2025_partial.xlsx")
    latest = "2025-05-17"
    both = y24 + y25
    cases = []

    def hn(rows):
        return [r[4] for r in rows if r[3] == "HB_NORTH"]
    for label, rows, params in (("2024", y24, {"settlement_point": "HB_NORTH", "year": 2024}),
                                ("2025", y25, {"settlement_point": "HB_NORTH", "year": 2025}),
                                ("both years", both, {"settlement_point": "HB_NORTH"})):
        v = hn(rows)
        cases.append(case(f"ercot latest HB_NORTH {label}", "power.price_ercot", latest, {"filters": params},
                          totals={**price_stats(v), "hour_count": len(v), "median_price": statistics.median(v),
                                  "p10_price": percentile(v, 10), "p90_price": percentile(v, 90)}))
    by_year = {}
    for r in both:
        by_year.setdefault(str(r[0].year), []).append(r[4])
    cases.append(case("ercot latest by year", "power.price_ercot", latest, {"group_by": ["year"]},
                      totals={"hour_count": len(both)},
                      groups={"hour_count": {y: len(v) for y, v in by_year.items()},
                              "avg_price": {y: math.fsum(v) / len(v) for y, v in by_year.items()}}))
    days25 = sorted({r[0] for r in y25})
    last = days25[-1]
    assert len(days25) == (last - datetime.date(2025, 1, 1)).days + 1
    in_month = calendar.monthrange(last.year, last.month)[1]
    cases.append(case("ercot latest 2025 (year to date)", "power.price_ercot", latest, {"filters": {"year": 2025}},
                      totals={"hour_count": len(y25)},
                      coverage=[f"delivery dates 2025-01-01 to {last}, {len(days25)} of its 365 days",
                                f"delivery dates {last:%Y-%m}-01 to {last}, {last.day} of its {in_month} days"]))
    # markets.json: the cases over the 2025 workbook, filtered to the year 2025, must agree.
    with open(os.path.join(ROOT, "testdata", "golden", "markets.json")) as f:
        markets = json.load(f)
    by_point = {}
    for r in y25:
        by_point.setdefault(r[3], []).append(r[4])
    checked = 0
    for mc in markets:
        if mc["capability"] != "power.price_ercot" or mc["as_of"] != latest:
            continue
        p = mc["params"]
        filters = p.get("filters", {})
        rows = y25
        if "delivery_date_from" in p:
            rows = [r for r in y25 if p["delivery_date_from"] <= r[0].isoformat() <= p["delivery_date_to"]]
        else:
            assert filters.get("year") == 2025, mc["name"]
        if "settlement_point" in filters:
            rows = [r for r in rows if r[3] == filters["settlement_point"]]
        vals = [r[4] for r in rows]
        mine = {**price_stats(vals), "hour_count": len(vals), "price_count": len(vals),
                "median_price": statistics.median(vals), "p10_price": percentile(vals, 10), "p90_price": percentile(vals, 90)}
        for m, want in mc.get("totals", {}).items():
            assert math.isclose(mine[m], want, rel_tol=1e-9), (mc["name"], m, mine[m], want)
            checked += 1
        for m, groups in mc.get("groups", {}).items():
            for point, want in groups.items():
                v = [r[4] for r in rows if r[3] == point]
                got = {"hour_count": len(v), "median_price": statistics.median(v) if v else None,
                       "p10_price": percentile(v, 10) if v else None, "p90_price": percentile(v, 90) if v else None}[m]
                assert math.isclose(got, want, rel_tol=1e-9), (mc["name"], m, point, got, want)
                checked += 1
    print(f"markets.json: {checked} figures of the 2025 workbook's cases agree", file=sys.stderr)
    return cases


# ---------------------------------------------------------------- N3045US3

def n3045us3_cases():
    ng = os.path.join(RAW, "eia", "ng_prices")
    us, us_release = monthly_series(os.path.join(ng, "NG_PRI_SUM_DCU_NUS_M.xls"), "N3045US3")
    st, st_release = monthly_series(os.path.join(ng, "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"), "N3045US3")
    assert (us_release, st_release) == ("2022-04-29", "2023-02-28"), (us_release, st_release)
    # Each month from the newest release that publishes a row for it.
    served = {m: (st[m] if m in st else us[m]) for m in set(us) | set(st)}
    for m in st:
        assert not (st[m] is None and us.get(m) is not None), f"{m}: the newer release is blank where the older has a value"
    revised = sorted(m for m in set(us) & set(st) if us[m] != st[m])
    only_new = sorted(m for m in st if m not in us)
    print(f"N3045US3: {len(us)} months in release {us_release}, {len(st)} in release {st_release}; "
          f"{len(set(us) & set(st))} in both, {len(revised)} revised ({', '.join(revised)}), "
          f"{len(only_new)} only in the later ({only_new[0]} to {only_new[-1]})", file=sys.stderr)
    cases = []

    def cut(series, lo, hi):
        return [v for m, v in sorted(series.items()) if lo <= m <= hi and v is not None]
    for as_of, series in (("2024-07-10", served), ("2022-04-29", us)):
        for label, lo, hi in (("all months", "0000", "9999"), ("2021", "2021-01", "2021-12"), ("2010s", "2010-01", "2019-12"),
                              ("2022", "2022-01", "2022-12")):
            vals = cut(series, lo, hi)
            params = {"filters": {"atom": "us_electric_power_monthly"}}
            if label != "all months":
                params["observation_date_from"], params["observation_date_to"] = lo, hi
            cases.append(case(f"us electric power monthly {label} as of {as_of}", "natural_gas.prices", as_of, params,
                              totals={**price_stats(vals), "observation_count": len(vals),
                                      "source_record_count": len([m for m in series if lo <= m <= hi])}))
    for m in revised:
        for as_of, series in (("2024-07-10", served), ("2022-04-29", us)):
            cases.append(case(f"N3045US3 {m} revised, as of {as_of}", "natural_gas.prices", as_of,
                              {"filters": {"series_id": "N3045US3", "month": m}}, totals={"avg_price": series[m]}))
    cases.append(case("us electric power monthly 2022 from the U.S. summary alone", "natural_gas.prices", "2022-04-29",
                      {"filters": {"atom": "us_electric_power_monthly", "year": 2022}},
                      totals={"observation_count": len(cut(us, "2022-01", "2022-12"))},
                      coverage=[f"the months 2022-01 to {max(us)}, {int(max(us)[5:])} of its 12"]))
    return cases


# ---------------------------------------------------------------- EIA-930

def demand_cases():
    path = os.path.join(RAW, "eia", "eia930", "Demand_for_California_(region)_hourly_-_UTC_time.csv")
    la = ZoneInfo("America/Los_Angeles")
    hours = {}
    with open(path, newline="") as f:
        for i, row in enumerate(csv.reader(f)):
            if i < 5 or not row:
                continue
            d, h = row[0].split(" ")
            m, dd, y = (int(x) for x in d.split("/"))
            end = datetime.datetime(y, m, dd, int(h[:2]), tzinfo=datetime.timezone.utc)
            hours[end] = float(row[1]) if len(row) > 1 and row[1].strip() else None
    ends = sorted(hours)
    first, last = ends[0], ends[-1]
    as_of = last.date().isoformat()
    cases = []

    def span(keep, start, nxt, name, cap, params, metric):
        sel = [e for e in ends if keep(e - datetime.timedelta(hours=1)) and hours[e] is not None]
        expected = int((nxt - start).total_seconds() // 3600)
        cov = f"{len(sel)} of its {expected} hours (hour ending {min(sel):%Y-%m-%dT%H:%M:%SZ} to {max(sel):%Y-%m-%dT%H:%M:%SZ})"
        cases.append(case(name, cap, as_of, params, totals={metric: len(sel)}, coverage=[cov]))
        return len(sel) < expected
    utc = datetime.timezone.utc
    for day in (first.date(), (last - datetime.timedelta(hours=1)).date()):
        s = datetime.datetime(day.year, day.month, day.day, tzinfo=utc)
        span(lambda t, s=s: s <= t < s + datetime.timedelta(days=1), s, s + datetime.timedelta(days=1),
             f"demand UTC day {day} (partial)", "power.demand", {"utc_date_from": day.isoformat(), "utc_date_to": day.isoformat()}, "hours_present")
    lday = (last - datetime.timedelta(hours=1)).astimezone(la).date()
    ls = datetime.datetime(lday.year, lday.month, lday.day, tzinfo=la)
    ln = datetime.datetime(lday.year, lday.month, lday.day, tzinfo=la) + datetime.timedelta(days=1)
    ln = datetime.datetime(ln.year, ln.month, ln.day, tzinfo=la)
    span(lambda t: ls <= t < ln, ls, ln, f"demand local day {lday} (partial)", "power.demand",
         {"local_date_from": lday.isoformat(), "local_date_to": lday.isoformat()}, "hours_present")
    span(lambda t: ls <= t < ln, ls, ln, f"rollup local day {lday} (partial)", "power.demand_rollup",
         {"filters": {"rollup_basis": "day America/Los_Angeles", "period": lday.isoformat()}}, "hours_present")
    for year in (first.year, last.year):
        s, n = datetime.datetime(year, 1, 1, tzinfo=utc), datetime.datetime(year + 1, 1, 1, tzinfo=utc)
        span(lambda t, s=s, n=n: s <= t < n, s, n, f"demand UTC year {year} (partial)", "power.demand",
             {"filters": {"utc_year": year}}, "hours_present")
    return cases


# ---------------------------------------------------------------- EIA API (power.generation)

def generation_cases():
    """The API response of Colorado 2022: it holds fewer rows than its request's total and is
    sorted by period descending, so its oldest month is cut and not served; the months served
    are the year's covered part."""
    with open(os.path.join(RAW, "eia", "eia923_api", "eia923_2022.json")) as f:
        doc = json.load(f)
    resp = doc["response"]
    months = sorted({r["period"] for r in resp["data"]})
    total = int(resp["total"])
    assert len(resp["data"]) < total and doc["request"]["params"]["sort"][0] == {"column": "period", "direction": "desc"}
    served = months[1:]
    plant_rows = [r for r in resp["data"] if r["period"] in served and r["fuel2002"] == "ALL" and r["primeMover"] == "ALL"]
    return [case("generation year 2022 (partial)", "power.generation", f"{served[-1]}-31",
                 {"filters": {"year": 2022, "level": "plant_total"}},
                 totals={"source_record_count": len(plant_rows)},
                 coverage=[f"the months {served[0]} to {served[-1]}, {len(served)} of its 12 ({months[0]} is in the response only in part and not served)"])]


def main():
    cases = ercot_cases() + n3045us3_cases() + demand_cases() + generation_cases()
    with open(OUT, "w") as f:
        f.write("[\n" + ",\n".join(" " + json.dumps(c) for c in cases) + "\n]\n")
    print(f"wrote {OUT} ({len(cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
