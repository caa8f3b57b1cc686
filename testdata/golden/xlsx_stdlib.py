"""A reader of xlsx worksheets with the Python standard library only (zipfile and
xml.etree.ElementTree), for the golden scripts: no spreadsheet module is needed.

Every cell comes back as the workbook stores it: shared and inline strings as their text
(rich-text runs joined, _xHHHH_ escapes decoded), numbers as Python numbers (an integer when the
stored text is one), booleans as True/False, an empty or absent cell as None. Dates are not
told apart from numbers (a date cell holds its Excel serial number); excel_date turns one into a
datetime.date.
"""
import datetime
import re
import zipfile
import xml.etree.ElementTree as ET

_M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_P = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_ESC = re.compile(r"_x([0-9A-Fa-f]{4})_")


def _unescape(s):
    return _ESC.sub(lambda m: chr(int(m.group(1), 16)), s)


def _text(el):
    return _unescape("".join(t.text or "" for t in el.iter(_M + "t")))


def _col(ref):
    n = 0
    for ch in ref:
        if not ch.isalpha():
            break
        n = n * 26 + ord(ch.upper()) - 64
    return n


def _number(s):
    try:
        return int(s)
    except ValueError:
        return float(s)


def excel_date(v):
    """The date an Excel serial number (1900 system) stands for."""
    return datetime.date(1899, 12, 30) + datetime.timedelta(days=int(float(v)))


class Workbook:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path)
        names = set(self.zip.namelist())
        self.strings = []
        if "xl/sharedStrings.xml" in names:
            root = ET.fromstring(self.zip.read("xl/sharedStrings.xml"))
            self.strings = [_text(si) for si in root.findall(_M + "si")]
        book = ET.fromstring(self.zip.read("xl/workbook.xml"))
        rels = ET.fromstring(self.zip.read("xl/_rels/workbook.xml.rels"))
        target = {r.get("Id"): r.get("Target") for r in rels.findall(_P + "Relationship")}
        self.sheets = {}
        for s in book.find(_M + "sheets").findall(_M + "sheet"):
            t = target[s.get(_R + "id")].lstrip("/")
            self.sheets[s.get("name")] = t if t.startswith("xl/") else "xl/" + t

    @property
    def sheetnames(self):
        return list(self.sheets)

    def rows(self, name):
        """Every row of sheet name from row 1 to its last, each a list of cell values from
        column A to its last cell (None where a cell is empty or absent)."""
        root = ET.fromstring(self.zip.read(self.sheets[name]))
        by_row = {}
        for row in root.iter(_M + "row"):
            cells = {}
            for c in row.findall(_M + "c"):
                t, v = c.get("t"), c.find(_M + "v")
                if t == "s" and v is not None:
                    val = self.strings[int(v.text)]
                elif t == "inlineStr":
                    el = c.find(_M + "is")
                    val = _text(el) if el is not None else None
                elif v is None or v.text is None:
                    val = None
                elif t == "b":
                    val = v.text == "1"
                elif t in ("str", "e"):
                    val = _unescape(v.text)
                else:
                    val = _number(v.text)
                if val == "":
                    val = None
                cells[_col(c.get("r"))] = val
            by_row[int(row.get("r"))] = cells
        if not by_row:
            return []
        out = []
        for r in range(1, max(by_row) + 1):
            cells = by_row.get(r, {})
            width = max(cells) if cells else 0
            out.append([cells.get(i) for i in range(1, width + 1)])
        return out
