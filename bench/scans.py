"""W12: the scans planned on the W1 table, and the files each must select.

Two filters, each keeping about 1% of the W1 table's files:

- `partition`: `date = DATE'2024-01-05' AND part IN (0, 1, 2, 3)`, 4 of the 448
  `date=2024-01-DD/part=N` partitions (files are spread evenly over them: ~0.9%);
- `data`: `id < N/100 * 1,000,000` on a data column. File i's `id` bounds are
  [i * 1,000,000, i * 1,000,000 + numRecords - 1] (stats_columns.py), so exactly the live files
  of the first N/100 indices have a minimum below the bound: statistics keep ~1% of the files
  (the checkpoint's first 1%, less the few the tail removed).

The files each filter must select are worked out once per table from its log, independently of
any engine (pyarrow reads the checkpoint's `add.path`, `add.partitionValues_parsed`,
`add.stats_parsed.minValues.id` and `add.size`; the JSON tail's adds and removes are replayed),
and cached beside the manifest as `scans.json`: per filter, the Spark SQL condition, delta-rs's
partition filters (none for the data filter), and the selected files' count and total size.
A plan that selects another count fails the job: fewer files would lose rows; more would mean
the engine does not prune (partition filters are exact, and the statistics of every file are
exact bounds, so a correct engine keeps exactly these).

    .venv/bin/python bench/scans.py bench/out/tables/w1-20000/table
"""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

SCANS_VERSION = 1  # bump when the filters or the file's fields change
SCANS_FILE = "scans.json"  # beside manifest.json
DAY = "2024-01-05"
PARTS = [0, 1, 2, 3]
ID_STEP = 1_000_000  # a file index's first id (stats_columns.py)


def filters(n_files: int) -> dict[str, dict]:
    """The two scans of a W1 table of `n_files` checkpointed files."""
    id_bound = n_files // 100 * ID_STEP
    parts = ", ".join(map(str, PARTS))
    return {
        "partition": {
            "where": f"date = DATE'{DAY}' AND part IN ({parts})",
            "partition_filters": [["date", "=", DAY], ["part", "in", [str(p) for p in PARTS]]],
        },
        "data": {"where": f"id < {id_bound}", "partition_filters": None, "id_below": id_bound},
    }


def _live(table: Path) -> pa.Table:
    """The live files (path, size, date, part, min id) from the checkpoint and the JSON tail."""
    log = table / "_delta_log"
    last = json.loads((log / "_last_checkpoint").read_text())["version"]
    adds = pq.read_table(log / f"{last:020d}.checkpoint.parquet", columns=["add"])["add"]
    flat = pc.struct_field  # one nested field of the add struct
    files: dict[str, tuple] = {}
    chunks = adds.combine_chunks()
    chunks = chunks.filter(pc.is_valid(chunks))  # the add rows
    paths = flat(chunks, "path").to_pylist()
    sizes = flat(chunks, "size").to_pylist()
    pv = flat(chunks, "partitionValues_parsed")
    days = flat(pv, "date").to_pylist()
    parts = flat(pv, "part").to_pylist()
    ids = flat(flat(flat(chunks, "stats_parsed"), "minValues"), "id").to_pylist()
    for row in zip(paths, sizes, days, parts, ids, strict=True):
        files[row[0]] = row[1:]
    tail = sorted(p for p in log.glob("*.json") if int(p.stem) > last)
    for commit in tail:
        for line in commit.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                a = action["add"]
                pv = a["partitionValues"]
                stats = json.loads(a["stats"])
                files[a["path"]] = (a["size"], date.fromisoformat(pv["date"]), int(pv["part"]),
                                    stats["minValues"]["id"])  # fmt: skip
            elif "remove" in action:
                files.pop(action["remove"]["path"], None)
    rows = list(files.values())
    return pa.table({
        "size": [r[0] for r in rows], "date": [r[1] for r in rows],
        "part": [r[2] for r in rows], "min_id": [r[3] for r in rows],
    })  # fmt: skip


def expected(table: Path, manifest: dict) -> dict[str, dict]:
    """The scans of the W1 table at `table` with the files each selects (cached in scans.json
    beside the manifest, for the table's generator version)."""
    cache = Path(table).parent / SCANS_FILE
    key = {"scans_version": SCANS_VERSION, "generator": manifest["generator"]}
    if cache.exists():
        cached = json.loads(cache.read_text())
        if all(cached.get(k) == v for k, v in key.items()):
            return cached["scans"]
    live = _live(Path(table))
    if live.num_rows != manifest["num_files"]:
        raise RuntimeError(f"{table}: replayed {live.num_rows} live files, the manifest says "
                           f"{manifest['num_files']}")  # fmt: skip
    scans = filters(manifest["num_files"] - _tail_growth(manifest))
    masks = {
        "partition": pc.and_(pc.equal(live["date"], pa.scalar(date.fromisoformat(DAY))),
                             pc.is_in(live["part"], pa.array(PARTS, pa.int32()))),
        "data": pc.less(live["min_id"], scans["data"]["id_below"]),
    }  # fmt: skip
    for name, mask in masks.items():
        chosen = live.filter(mask)
        scans[name]["num_files"] = chosen.num_rows
        scans[name]["size_in_bytes"] = pc.sum(chosen["size"]).as_py() or 0
    cache.write_text(json.dumps({**key, "scans": scans}, indent=1))
    return scans


def _tail_growth(manifest: dict) -> int:
    """Files the W1 tail adds beyond the checkpoint's (100 commits of 100 adds, 50 removes)."""
    import gen_logs

    return gen_logs.TAIL_COMMITS * (gen_logs.TAIL_ADDS - gen_logs.TAIL_REMOVES)


if __name__ == "__main__":
    path = Path(sys.argv[1])
    import gen_logs

    print(json.dumps(expected(path, gen_logs.manifest(path)), indent=1))
