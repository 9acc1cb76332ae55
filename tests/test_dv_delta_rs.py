"""delta-rs reads the deletion vectors txlog writes.

A table txlog wrote (two data files, deletion vectors enabled) gets, through txlog's writer
internals (py4j) and its Transaction: a DV file for the first data file, then that DV merged with
more row indexes into a new DV file, and an inline DV for the second data file. After each
commit delta-rs reads the rows it read before less those at the new row indexes, which pyarrow
finds by position in the parquet file (not txlog).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import deltalake
import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

import txlog
from txlog import DeltaLog


def _ids(t: str) -> list[int]:
    """The ids delta-rs reads (its DataFusion scan: the one that applies deletion vectors)."""
    table = deltalake.DeltaTable(t).scan(columns=["id"]).read_all()
    return sorted(table.column("id").to_pylist())


def _ids_at(t: str, path: str, indexes: list[int]) -> list[int]:
    ids = pq.read_table(str(Path(t) / path)).column("id").to_pylist()
    return [ids[i] for i in indexes]


def _row_set(jvm: Any, rows: list[int]) -> Any:
    builder = jvm.txlog.deletionvectors.RowIndexSet.builder()
    for r in rows:
        builder.add(r)
    return builder.result()


def _commit(spark: SparkSession, t: str, dvs: dict[str, Any]) -> None:
    """Commits the new DVs (Scala DvDescriptor objects by data file) as remove + add of each."""
    rows = [(path, dv.toJson()) for path, dv in dvs.items()]
    new = spark.createDataFrame(rows, "path STRING, dv STRING").selectExpr(
        "path",
        "from_json(dv, 'storageType STRING, pathOrInlineDv STRING, offset INT, "
        "sizeInBytes INT, cardinality BIGINT, maxRowIndex BIGINT') AS newDeletionVector",
    )
    txn = DeltaLog.for_table(spark, t).start_transaction()
    files = txn.read_files().join(new, "path")
    txn._jtxn.updateDeletionVectors(files._jdf)
    assert txn.commit("DELETE") is not None


def test_delta_rs_reads_dv_files_merged_and_inline(spark: SparkSession, tmp_path: Path) -> None:
    t = str(tmp_path / "t")
    txlog.write(spark.range(0, 60, 1, 2), t, properties={"delta.enableDeletionVectors": "true"})
    before = _ids(t)
    assert before == list(range(60))
    actions = pa.table(deltalake.DeltaTable(t).get_add_actions(flatten=True))
    files = sorted(actions.column("path").to_pylist())
    assert len(files) == 2
    first, second = files
    jvm = spark._jvm
    dvs = jvm.txlog.deletionvectors
    conf = spark._jsc.hadoopConfiguration()

    # a DV file for the first data file
    writer = dvs.DeletionVectorWriter.open(t, conf, "", jvm.java.util.UUID.randomUUID())
    dv1 = writer.write(_row_set(jvm, [1, 5, 6]))
    writer.close()
    _commit(spark, t, {first: dv1})
    gone = _ids_at(t, first, [1, 5, 6])
    assert _ids(t) == sorted(set(before) - set(gone))

    # merged with more row indexes (one deleted already) into a new DV file; the second file's
    # DV inline
    store = getattr(getattr(dvs, "DeletionVectorStore$"), "MODULE$")
    version = DeltaLog.for_table(spark, t).snapshot().version
    existing = store.load(t, version, first, dv1, conf)
    merged = existing.union(_row_set(jvm, [0, 6, 20]))
    assert merged.cardinality() == 5
    writer = dvs.DeletionVectorWriter.open(t, conf, "", jvm.java.util.UUID.randomUUID())
    dv2 = writer.write(merged)
    writer.close()
    inline = dvs.DeletionVectorWriter.inline(_row_set(jvm, [2, 3]))
    assert inline.storageType() == "i"
    _commit(spark, t, {first: dv2, second: inline})
    gone += _ids_at(t, first, [0, 20]) + _ids_at(t, second, [2, 3])
    assert len(set(gone)) == 7
    assert _ids(t) == sorted(set(before) - set(gone))
    assert sorted(r.id for r in DeltaLog.for_table(spark, t).read().collect()) == _ids(t)
