"""delta-rs as an oracle for the Scala suites (run with the project's venv).

    delta_rs_table.py write DIR   writes three appends of real data partitioned by `part`, and a
                                  delta-rs checkpoint after them
    delta_rs_table.py read DIR    prints what delta-rs reads of the latest version as one JSON
                                  object: version, and files as [path, size, partitionValues]
                                  with paths as absolute URIs
    delta_rs_table.py rows FILE   reads the tables FILE lists (a JSON array of {"path", "version",
                                  "rows"}: each row one JSON object, as Spark's Row.json writes
                                  it) at those versions and prints one JSON object: the tables
                                  and rows read, and each table whose rows differ (or that
                                  delta-rs refuses) with what differs

Several commands run in one process, in order (`write DIR read DIR`), so that a caller starts
Python and loads delta-rs once for them.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import sys
from collections import Counter
from typing import Any

import deltalake
import pyarrow as pa


def write(path: str) -> None:
    for i, part in enumerate(["a", "b", "a"]):
        data = pa.table({"id": pa.array([i * 10 + k for k in range(5)], pa.int64()),
                         "part": pa.array([part] * 5)})  # fmt: skip
        deltalake.write_deltalake(path, data, partition_by=["part"], mode="append")
    deltalake.DeltaTable(path).create_checkpoint()


def read(path: str) -> None:
    dt = deltalake.DeltaTable(path)
    t = pa.table(dt.get_add_actions(flatten=True))
    parts = [c for c in t.column_names if c.startswith("partition.")]
    uris = dict(zip(t["path"].to_pylist(), dt.file_uris()))
    files = [
        [uris.get(r["path"], r["path"]), r["size_bytes"],
         {c[len("partition."):]: r[c] for c in parts}]
        for r in t.select(["path", "size_bytes", *parts]).to_pylist()
    ]  # fmt: skip
    json.dump({"version": dt.version(), "files": files}, sys.stdout)


def canonical(v: Any) -> Any:
    """A value as JSON gives it back, whichever side it came from: a map's pairs as an object,
    decimals as floats (Spark's JSON writes them as numbers), dates and times in ISO form and
    bytes in base64 (as Spark's Row.json writes them)."""
    if isinstance(v, dict):
        return {str(k): canonical(x) for k, x in v.items()}
    if isinstance(v, list) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return {str(k): canonical(x) for k, x in v}  # pyarrow's map
    if isinstance(v, (list, tuple)):
        return [canonical(x) for x in v]
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    return v


def row_key(row: dict[str, Any]) -> str:
    return json.dumps(canonical(row), sort_keys=True)


def rows(listing: str) -> None:
    with open(listing, encoding="utf-8") as f:
        tables = json.load(f)
    differ, read_rows = [], 0
    for t in tables:
        where = {"path": t["path"], "version": t["version"]}
        expected = Counter(row_key(json.loads(r)) for r in t["rows"])
        try:
            data = deltalake.DeltaTable(t["path"], version=t["version"]).scan().read_all()
        except Exception as e:  # delta-rs refusing the table is a difference too
            differ.append({**where, "error": f"{type(e).__name__}: {e}"})
            continue
        got = Counter(row_key(r) for r in pa.table(data).to_pylist())
        read_rows += sum(got.values())
        if got != expected:
            differ.append({**where, "missing": sorted((expected - got).elements())[:5],
                           "unexpected": sorted((got - expected).elements())[:5]})  # fmt: skip
    json.dump({"tables": len(tables), "rows": read_rows, "differ": differ}, sys.stdout)


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit("usage: delta_rs_table.py (write|read|rows) ARG [(write|read|rows) ARG ...]")
    for command, path in zip(args[::2], args[1::2]):
        {"write": write, "read": read, "rows": rows}[command](path)
