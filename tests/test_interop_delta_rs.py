"""Interop with delta-rs both ways.

- Tables txlog creates and commits to, over a matrix of features, are read by delta-rs at every
  version: the files the test committed (its own model) and the same snapshot as txlog's.
- txlog commits on top of tables delta-rs wrote (with and without a delta-rs checkpoint):
  delta-rs then reads the new version as the old one minus the removed file plus the added one.

The Scala InteropMatrixSuite and CommitOnFixturesSuite check the same against delta-spark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import deltalake
import pyarrow as pa
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import txlog
from delta_rs_oracle import compare_version, normalize_path
from txlog import DeltaLog

SCHEMA = "id BIGINT, part STRING"

# (name, partition columns, properties): the rows of the Scala InteropMatrixSuite.
MATRIX = [
    ("plain", [], {}),
    ("partitioned", ["part"], {}),
    ("column-mapping-name", ["part"], {"delta.columnMapping.mode": "name"}),
    ("column-mapping-id", [], {"delta.columnMapping.mode": "id"}),
    ("in-commit-timestamps", ["part"], {"delta.enableInCommitTimestamps": "true"}),
    ("row-tracking", [], {"delta.enableRowTracking": "true"}),
    ("change-data-feed", ["part"], {"delta.enableChangeDataFeed": "true"}),
    ("v2-checkpoints", [], {"delta.checkpointPolicy": "v2"}),
    ("constraints", [], {"delta.constraints.positive": "id > 0"}),
]


@pytest.fixture(scope="module", autouse=True)
def utc_session(spark: SparkSession) -> Iterator[None]:
    """Partition values compared as delta-rs reads them (UTC), as in the agreement suite."""
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield
    spark.conf.set("spark.sql.session.timeZone", before)


def _adds(spark: SparkSession, names: list[str], part: str, partitioned: bool,
          id_name: str) -> DataFrame:  # fmt: skip
    """Adds with stats of `id` under `id_name` (its physical name under column mapping) and
    partition values by the logical name, which txlog writes by the physical one."""
    rows = [
        (n, 1000 + i, {"part": part} if partitioned else {}, 1_700_000_000_000, True,
         f'{{"numRecords":10,"minValues":{{"{id_name}":{i + 1}}},'
         f'"maxValues":{{"{id_name}":{i + 9}}},"nullCount":{{"{id_name}":0}}}}')
        for i, n in enumerate(names)
    ]  # fmt: skip
    return spark.createDataFrame(
        rows, "path string, size long, partitionValues map<string,string>, "
        "modificationTime long, dataChange boolean, stats string",
    )  # fmt: skip


def _delta_rs_names(path: str, version: int) -> set[str]:
    dt = deltalake.DeltaTable(path, version=version)
    return {Path(p).name for p in pa.table(dt.get_add_actions(flatten=True))["path"].to_pylist()}


@pytest.mark.parametrize("name,partition_by,props", MATRIX, ids=[m[0] for m in MATRIX])
def test_delta_rs_reads_every_version_txlog_commits(
    spark: SparkSession, tmp_path: Path, name: str, partition_by: list[str],
    props: dict[str, str],
) -> None:  # fmt: skip
    path = str(tmp_path / "t")
    partitioned = bool(partition_by)
    log = txlog.create_table(spark, path, SCHEMA, partition_by=partition_by,
                             properties={**props, "delta.checkpointInterval": "3"})
    id_meta = log.snapshot().metadata.schema["id"].metadata
    id_name = id_meta.get("delta.columnMapping.physicalName", "id")

    def _adds_of(names: list[str], part: str) -> DataFrame:
        return _adds(spark, names, part, partitioned, id_name)

    model: list[set[str]] = [set()]
    log.start_transaction().add_files(_adds_of(["a1", "a2"], "a")).commit()
    model.append({"a1", "a2"})
    (log.start_transaction().add_files(_adds_of(["b1"], "b"))
        .set_app_transaction("app", 1).commit())  # fmt: skip
    model.append(model[-1] | {"b1"})
    txn = log.start_transaction()
    txn.remove_files(txn.read_files(F.col("path") == "a1"))
    txn.add_files(_adds_of(["a3"], "a"))
    assert txn.commit("UPDATE") == 3
    model.append(model[-1] - {"a1"} | {"a3"})
    assert txn.result is not None and txn.result.checkpoint_version == 3, txn.result
    (log.start_transaction().update_metadata(schema=SCHEMA + ", extra STRING",
                                             properties={"user.key": "v"})
        .commit("CHANGE COLUMN"))  # fmt: skip
    model.append(model[-1])
    log.start_transaction().add_files(_adds_of(["b2"], "b")).commit()
    model.append(model[-1] | {"b2"})

    root = Path(path)
    for v, expected in enumerate(model):
        dt = deltalake.DeltaTable(path, version=v)
        assert _delta_rs_names(path, v) == expected, f"v{v}: delta-rs reads other files"
        compare_version(spark, DeltaLog.for_table(spark, path), root, dt, v)
    latest = deltalake.DeltaTable(path)
    assert latest.version() == len(model) - 1
    assert latest.transaction_version("app") == 1
    assert latest.metadata().configuration.get("user.key") == "v"
    assert [f.name for f in latest.schema().fields][-1] == "extra"
    # delta-rs sees the logical partition values and the statistics txlog wrote (it names
    # statistics columns by their physical names).
    actions = pa.table(latest.get_add_actions(flatten=True)).to_pylist()
    by_name = {Path(a["path"]).name: a for a in actions}
    assert by_name["b2"][f"max.{id_name}"] == 9 and by_name["b2"]["num_records"] == 10
    if partitioned:
        assert by_name["b2"]["partition.part"] == "b"


def _delta_rs_table(path: str, checkpoint: bool) -> None:
    """Three delta-rs commits of real data, partitioned by `part`; a checkpoint if asked."""
    for i, part in enumerate(["a", "b", "a"]):
        data = pa.table({"id": pa.array([i * 10 + k for k in range(5)], pa.int64()),
                         "part": pa.array([part] * 5)})  # fmt: skip
        deltalake.write_deltalake(path, data, partition_by=["part"], mode="append")
    if checkpoint:
        deltalake.DeltaTable(path).create_checkpoint()


def _files(dt: Any, root: Path) -> set[tuple[str, int]]:
    t = pa.table(dt.get_add_actions(flatten=True)).select(["path", "size_bytes"]).to_pylist()
    return {(normalize_path(r["path"], root), int(r["size_bytes"])) for r in t}


@pytest.mark.parametrize("checkpoint", [False, True], ids=["commits", "checkpoint"])
def test_txlog_commits_on_a_delta_rs_table(
    spark: SparkSession, tmp_path: Path, checkpoint: bool
) -> None:
    path = str(tmp_path / "t")
    root = Path(path)
    _delta_rs_table(path, checkpoint)
    before = deltalake.DeltaTable(path)
    old_files = _files(before, root)

    log = DeltaLog.for_table(spark, path)
    txn = log.start_transaction()
    victim = txn.read_files("partitionValues_parsed.part = 'b'")
    gone = {(normalize_path(r.path, root), int(r.size)) for r in victim.collect()}
    assert len(gone) == 1
    txn.remove_files(victim)
    txn.add_files(victim.select(
        F.regexp_replace("path", r"\.parquet$", "-copy.parquet").alias("path"),
        "size", "partitionValues", "modificationTime", F.lit(True).alias("dataChange"),
    ))  # fmt: skip
    version = txn.commit("UPDATE")
    assert version == before.version() + 1

    after = deltalake.DeltaTable(path)
    assert after.version() == version
    added = _files(after, root) - old_files
    assert [Path(p).name.endswith("-copy.parquet") for p, _ in added] == [True]
    assert _files(after, root) == old_files - gone | added
    assert after.history(1)[0]["operation"] == "UPDATE"
    compare_version(spark, log, root, after, version)
    # A later delta-rs commit lands on top of txlog's, and txlog reads it.
    more = pa.table({"id": pa.array([99], pa.int64()), "part": pa.array(["c"])})
    deltalake.write_deltalake(path, more, partition_by=["part"], mode="append")
    compare_version(spark, log, root, deltalake.DeltaTable(path), version + 1)
