#!/usr/bin/env python3
"""Writes the catalogue mix of bench/load/catalog.lua: distinct cited queries over every
capability a running server serves, read from its own schemas (GET /v1/capabilities and each
/schema), one request a line as "<query path>\t<params JSON without its closing brace>".

For every served capability and each of its snapshots (as_of pinned), each group_by
dimension, ordered by each metric in turn, and for the latest snapshot also filtered to each
of up to 8 values of every filter that lists its values (the first the schema lists), with
include_records on one line in eight. catalog.lua adds a top_n to every request, so the
response cache does not answer a line twice.

    mix.py BASE_URL OUT_FILE
"""
import json
import os
import sys
import urllib.error
import urllib.request


def get(base, path):
    with urllib.request.urlopen(base + path) as r:
        return json.load(r)


def answers(base, path):
    """Whether the capability answers a query of its latest snapshot: one served on data that
    refuses every query (power.capacity_factor when its inputs' months do not meet) is left
    out of the mix, which measures answers, not refusals."""
    headers = {"Content-Type": "application/json"}
    if os.environ.get("CITEQ_API_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["CITEQ_API_KEY"]
    req = urllib.request.Request(base + "/v1/%s/query" % path, data=b"{}", headers=headers)
    try:
        with urllib.request.urlopen(req) as r:
            return r.status == 200
    except urllib.error.HTTPError as e:
        if e.code >= 500:
            raise
        return False


def main():
    base, out = sys.argv[1], sys.argv[2]
    lines = []
    caps = get(base, "/v1/capabilities")["capabilities"]
    refused = [c["path"] for c in caps if not answers(base, c["path"])]
    caps = [c for c in caps if c["path"] not in refused]
    for cap in caps:
        schema = get(base, "/v1/%s/schema" % cap["path"])
        dims = schema.get("group_by") or []
        metrics = [m["name"] for m in schema.get("metrics") or []]
        filters = []
        for f in schema.get("filters") or []:
            vals = f.get("values_in_snapshot") or f.get("values") or []
            if f["name"] == "as_of" or not vals:
                continue
            filters.append((f["name"], vals[:8]))
        query = "/v1/%s/query" % cap["path"]
        for as_of in cap.get("as_of_available") or [cap["as_of_latest"]]:
            n = 0
            for dim in dims:
                variants = [None]
                if as_of == cap["as_of_latest"]:  # the schema lists the latest snapshot's values
                    variants += [(name, v) for name, vals in filters if name != dim for v in vals]
                for variant in variants:
                    metric = metrics[n % len(metrics)] if metrics else None
                    params = {"as_of": as_of, "group_by": [dim]}
                    if variant:
                        params["filters"] = {variant[0]: variant[1]}
                    if metric:
                        params["order_by"] = metric
                    if n % 8 == 7:
                        params["include_records"] = True
                        params["limit"] = 100
                    body = json.dumps(params, separators=(",", ":"))
                    lines.append(query + "\t" + body[:-1])
                    n += 1
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(len(lines), "queries over", len(caps), "capabilities",
          "(refusing every query, left out: %s)" % ", ".join(refused) if refused else "")


if __name__ == "__main__":
    main()
