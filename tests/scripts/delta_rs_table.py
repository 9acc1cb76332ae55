"""delta-rs as an oracle for the Scala suites (run with the project's venv).

    delta_rs_table.py write DIR   writes three appends of real data partitioned by `part`, and a
                                  delta-rs checkpoint after them
    delta_rs_table.py read DIR    prints what delta-rs reads of the latest version as one JSON
                                  object: version, and files as [path, size, partitionValues]
                                  with paths as absolute URIs

Several commands run in one process, in order (`write DIR read DIR`), so that a caller starts
Python and loads delta-rs once for them.
"""

from __future__ import annotations

import json
import sys

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


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit("usage: delta_rs_table.py (write|read) DIR [(write|read) DIR ...]")
    for command, path in zip(args[::2], args[1::2]):
        {"write": write, "read": read}[command](path)
