"""What the demo table at examples/tables/demo must be, and the checks that it is.

Used by make_demo_table.py after writing the table: the log is read back with delta-spark and
checked operation by operation against EXPECTED, and every version is compared with delta-rs
(the `deltalake` package).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

EXAMPLES_DIR = Path(__file__).resolve().parent
TABLE_DIR = EXAMPLES_DIR / "tables" / "demo"
LOG_DIR = TABLE_DIR / "_delta_log"

# Size budget: the table is committed to the repository.
MAX_TABLE_BYTES = 200 * 1024

# Expected operation and live file count per version; checked after writing.
EXPECTED = [
    # (version, operation, live files)
    (0, "CREATE TABLE", 0),
    (1, "WRITE", 3),            # initial load: US, DE, FR (one file each)
    (2, "WRITE", 5),            # append: DE, US
    (3, "UPDATE", 5),           # FR file rewritten (copy-on-write)
    (4, "DELETE", 5),           # 2 rows out of the first US file -> deletion vector
    (5, "SET TBLPROPERTIES", 5),  # metadata only; checkpoint 5 written after it
    (6, "ADD COLUMNS", 5),      # schema change: new nullable column `channel`
    (7, "WRITE", 7),            # append with the new column: JP, US
    (8, "OPTIMIZE", 6),         # DE: 2 files compacted into 1 (dataChange=false)
    (9, "DELETE", 6),           # 1 more row from the same US file -> DV replaced
]
LATEST = EXPECTED[-1][0]
CHECKPOINT_VERSION = 5


def fail(msg: str) -> None:
    print(f"FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond: bool, msg: str) -> None:
    if not cond:
        fail(msg)




# ---------------------------------------------------------------------------
# Inspection with delta-spark
# ---------------------------------------------------------------------------

def rel(uri_or_path: str) -> str:
    """Path of a data file relative to the table root (URI-decoded)."""
    p = unquote(urlparse(uri_or_path).path) if ":" in uri_or_path else uri_or_path
    root = str(TABLE_DIR) + "/"
    check(p.startswith(root), f"file outside table root: {uri_or_path}")
    return p[len(root):]


def spark_version_view(spark, v: int):
    df = spark.read.format("delta").option("versionAsOf", v).load(str(TABLE_DIR))
    files = sorted(rel(f) for f in df.inputFiles())
    rows = sorted(tuple(r) for r in df.select(*sorted(df.columns)).collect())
    return files, rows, sorted(df.columns)


def inspect_with_spark(spark):
    history = {
        r["version"]: r
        for r in spark.sql(f"DESCRIBE HISTORY delta.`{TABLE_DIR}`").collect()
    }
    detail = spark.sql(f"DESCRIBE DETAIL delta.`{TABLE_DIR}`").collect()[0]
    views = {v: spark_version_view(spark, v) for v, _, _ in EXPECTED}
    return history, detail, views


# ---------------------------------------------------------------------------
# Cross-check with delta-rs
# ---------------------------------------------------------------------------

def deltars_version_view(v: int, columns):
    import pyarrow as pa
    from deltalake import DeltaTable

    dtab = DeltaTable(str(TABLE_DIR), version=v)
    check(dtab.version() == v, f"delta-rs loaded version {dtab.version()}, wanted {v}")
    files = sorted(rel(u) for u in dtab.file_uris())
    # scan() applies deletion vectors; to_pyarrow_table() would not. It
    # returns an arro3 reader, which pyarrow imports through the C stream API.
    tbl = pa.table(dtab.scan(columns=columns)) if files else None
    rows = [] if tbl is None else sorted(
        tuple(r[c] for c in columns) for r in tbl.to_pylist()
    )
    return dtab, files, rows


def verify_with_deltars(spark_views) -> None:
    import deltalake
    import pyarrow as pa
    from deltalake import DeltaTable

    print(f"\ndelta-rs (deltalake {deltalake.__version__}) cross-check")
    latest = DeltaTable(str(TABLE_DIR))
    check(latest.version() == LATEST, f"delta-rs latest version {latest.version()} != {LATEST}")
    print(f"  latest version: {latest.version()}, live files: {len(latest.file_uris())}")

    for v, _, _ in EXPECTED:
        s_files, s_rows, cols = spark_views[v]
        _, r_files, r_rows = deltars_version_view(v, cols)
        check(r_files == s_files,
              f"v{v}: live files differ\n  delta-spark: {s_files}\n  delta-rs:    {r_files}")
        check(r_rows == s_rows,
              f"v{v}: rows differ\n  delta-spark: {s_rows}\n  delta-rs:    {r_rows}")
        print(f"  v{v}: {len(r_files)} files, {len(r_rows)} rows - agree")

    # Time travel to version 2 explicitly, as a reader would.
    v2 = DeltaTable(str(TABLE_DIR), version=2)
    ids = sorted(pa.table(v2.scan(columns=["id"])).column("id").to_pylist())
    check(ids == list(range(1, 19)), f"time travel to v2: unexpected ids {ids}")
    print(f"  time travel to v2: version {v2.version()}, {len(v2.file_uris())} files, ids 1..18")

    # The latest snapshot has exactly one file with a DV (3 of 5 rows deleted).
    dvs = pa.table(latest.deletion_vectors()).to_pylist()
    check(len(dvs) == 1, f"delta-rs sees {len(dvs)} files with a DV, wanted 1")
    deleted = dvs[0]["selection_vector"].count(False)
    check(deleted == 3, f"DV deletes {deleted} rows, wanted 3")
    print(f"  deletion vector on {rel(dvs[0]['filepath'])}: {deleted} rows deleted")


# ---------------------------------------------------------------------------
# Checks on the written log and the summary
# ---------------------------------------------------------------------------

def read_commit(v: int) -> list[dict]:
    with open(LOG_DIR / f"{v:020d}.json") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def check_log(history, detail, views) -> None:
    check(sorted(history) == list(range(LATEST + 1)),
          f"unexpected versions in history: {sorted(history)}")
    for v, op, n_files in EXPECTED:
        got_op = history[v]["operation"]
        check(got_op == op, f"v{v}: operation {got_op!r}, wanted {op!r}")
        got_n = len(views[v][0])
        check(got_n == n_files, f"v{v}: {got_n} live files, wanted {n_files}")
    check(detail["numFiles"] == EXPECTED[-1][2],
          f"DESCRIBE DETAIL numFiles {detail['numFiles']} != {EXPECTED[-1][2]}")

    # Checkpoint in the middle, with commits after it.
    cp = LOG_DIR / f"{CHECKPOINT_VERSION:020d}.checkpoint.parquet"
    check(cp.exists(), f"missing {cp.name}")
    last_cp = json.loads((LOG_DIR / "_last_checkpoint").read_text())
    check(last_cp["version"] == CHECKPOINT_VERSION, f"_last_checkpoint: {last_cp}")

    # Deletion vectors were actually written to disk.
    check(any(TABLE_DIR.glob("deletion_vector_*.bin")), "no deletion_vector_*.bin written")

    # Plain table: no in-commit timestamps; userMetadata present where set.
    for v in range(LATEST + 1):
        for action in read_commit(v):
            if "commitInfo" in action:
                check("inCommitTimestamp" not in action["commitInfo"],
                      f"v{v}: commit has an inCommitTimestamp")
            if "protocol" in action:
                feats = action["protocol"].get("writerFeatures", [])
                check("inCommitTimestamp" not in feats, f"v{v}: ICT feature enabled")
    check(history[1]["userMetadata"] == "demo: initial load", "v1: userMetadata missing")
    check(history[9]["userMetadata"] == "demo: second delete", "v9: userMetadata missing")

    # The file actions have the shapes the README promises.
    def actions(v, kind):
        return [a[kind] for a in read_commit(v) if kind in a]

    check(not any(a.get("deletionVector") for a in actions(3, "add")),
          "v3: UPDATE should be copy-on-write (no DV)")
    check([bool(a.get("deletionVector")) for a in actions(4, "add")] == [True],
          "v4: DELETE should add one file with a DV")
    check(not any(a.get("dataChange") for a in actions(8, "add") + actions(8, "remove")),
          "v8: OPTIMIZE actions should have dataChange=false")
    (old_dv,) = [a["deletionVector"] for a in actions(4, "add")]
    check([a.get("deletionVector") for a in actions(9, "remove")] == [old_dv],
          "v9: remove should carry the DV written at v4")


def describe_commit(v: int) -> str:
    counts: dict[str, int] = {}
    dv_adds = 0
    for action in read_commit(v):
        for k, val in action.items():
            if k == "commitInfo":
                continue
            counts[k] = counts.get(k, 0) + 1
            if k == "add" and val.get("deletionVector"):
                dv_adds += 1
    parts = [f"{n} {k}" for k, n in sorted(counts.items())]
    if dv_adds:
        parts.append(f"{dv_adds} of the adds with a DV")
    return ", ".join(parts)


def summary(history, detail) -> None:
    total = sum(p.stat().st_size for p in TABLE_DIR.rglob("*") if p.is_file())
    n_files = sum(1 for p in TABLE_DIR.rglob("*") if p.is_file())
    dv_files = sorted(p.name for p in TABLE_DIR.glob("deletion_vector_*.bin"))
    checkpoints = sorted(p.name for p in LOG_DIR.glob("*.checkpoint*.parquet"))

    print(f"\nDemo table written to {TABLE_DIR}")
    print(f"  latest version {LATEST}, live files {detail['numFiles']}, "
          f"partitioned by {list(detail['partitionColumns'])}")
    print(f"  protocol: reader {detail['minReaderVersion']}, writer {detail['minWriterVersion']}, "
          f"features {sorted(detail['tableFeatures'])}")
    for v, _, n in EXPECTED:
        h = history[v]
        um = f"  userMetadata={h['userMetadata']!r}" if h["userMetadata"] else ""
        print(f"  v{v}: {h['operation']:<17} live files {n}  [{describe_commit(v)}]{um}")
    print(f"  deletion vector files: {dv_files}")
    print(f"  checkpoints: {checkpoints}; _last_checkpoint -> version {CHECKPOINT_VERSION}")
    print(f"  on disk: {n_files} files, {total} bytes")
    check(total < MAX_TABLE_BYTES, f"table is {total} bytes, budget {MAX_TABLE_BYTES}")
