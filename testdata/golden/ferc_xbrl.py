"""Reading FERC Form 1 XBRL instance documents with the standard library's ElementTree, for the
golden scripts compute_ferc.py and fixtures/compute_ferc1_402.py (no citeq code).

read(path) gives a filing's facts in document order, its contexts (entity, dimensions by
local axis name with each typed member's text, period end or instant), its units resolved
through its own xbrli:unit elements (ids differ per file; measures by local name, a divide as
numerator/denominator), the first value of each dimensionless FERC concept (the cover page:
ReportYear, AttestationDate, ...) and the entity of its first fact.
"""
import os
import re
import xml.etree.ElementTree as ET

X = "{http://www.xbrl.org/2003/instance}"
XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"
FERC = re.compile(r"^\{http://ferc\.gov/form/\d{4}-\d{2}-\d{2}/ferc\}(.+)$")
TEXT = {"PlantName", "PlantKind", "PlantConstructionType", "YearPlantOriginallyConstructed", "YearLastUnitOfPlantInstalled",
        "FuelKind", "FuelUnit"}
FUEL = {"FuelKind", "FuelUnit", "QuantityOfFuelBurned", "FuelBurnedAverageHeatContent", "AverageCostOfFuelPerUnitAsDelivered",
        "AverageCostOfFuelPerUnitBurned", "AverageCostOfFuelBurnedPerMillionBritishThermalUnit",
        "AverageCostOfFuelBurnedPerKilowattHourNetGeneration", "AverageBritishThermalUnitPerKilowattHourNetGeneration"}


def local(q):
    return q.split(":")[-1]


def read(path):
    root = ET.parse(path).getroot()
    contexts, units = {}, {}
    for c in root.findall(X + "context"):
        dims = {}
        for m in c.iter():
            if m.tag.endswith("}typedMember"):
                dims[local(m.get("dimension"))] = "".join(m[0].itertext())
            elif m.tag.endswith("}explicitMember"):
                dims[local(m.get("dimension"))] = m.text.strip()
        period = c.find(X + "period")
        end = period.find(X + "endDate")
        if end is None:
            end = period.find(X + "instant")
        contexts[c.get("id")] = (c.find(X + "entity/" + X + "identifier").text.strip(), dims, end.text.strip())
    for u in root.findall(X + "unit"):
        div = u.find(X + "divide")
        if div is not None:
            n = [m.text.strip() for m in div.find(X + "unitNumerator").iter(X + "measure")]
            d = [m.text.strip() for m in div.find(X + "unitDenominator").iter(X + "measure")]
            units[u.get("id")] = "*".join(map(local, n)) + "/" + "*".join(map(local, d))
        else:
            units[u.get("id")] = "*".join(local(m.text.strip()) for m in u.iter(X + "measure"))
    facts = [e for e in root.iter() if e.get("contextRef") is not None]
    cover = {}
    for e in facts:
        m = FERC.match(e.tag)
        if m and not contexts[e.get("contextRef")][1] and m.group(1) not in cover:
            cover[m.group(1)] = (e.text or "").strip()
    return {"path": path, "name": os.path.basename(path), "facts": facts, "contexts": contexts, "units": units,
            "cover": cover, "entity": contexts[facts[0].get("contextRef")][0]}


def latest_filings(filings):
    """The filing served of each respondent and ReportYear: the latest AttestationDate."""
    latest = {}
    for f in filings:
        k = (f["entity"], f["cover"]["ReportYear"])
        if k not in latest or f["cover"]["AttestationDate"] > latest[k]["cover"]["AttestationDate"]:
            latest[k] = f
    return latest
