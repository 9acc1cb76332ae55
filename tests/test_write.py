"""Writing DataFrames from Python with ``txlog.write``: delta-rs (the ``deltalake`` package)
reads the rows txlog wrote, and the per-file row counts of its statistics; bad arguments and bad
data are refused with typed errors and no commit.

Statistics equal to delta-spark's, modes and refused table features are checked in the Scala
suite (DataWriteSuite).
"""

from __future__ import annotations

import os
from pathlib import Path

import deltalake
import pyarrow as pa
import pytest
from chispa import assert_df_equality
from pyspark.sql import SparkSession
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

import txlog
from txlog import errors
from test_read import _arrow, _rows

_ROWS = """SELECT id, CAST(id AS INT) AS i, id / 4.0D AS d, CAST(id / 7 AS DECIMAL(10, 2)) AS dec,
  CASE WHEN id % 4 = 0 THEN NULL ELSE concat('name ', id) END AS name, id % 2 = 0 AS flag,
  date_add(DATE'2024-01-30', CAST(id AS INT)) AS day,
  named_struct('a', id, 'b', array(id, id + 1)) AS st, map('k', id) AS m,
  CASE WHEN id % 3 = 0 THEN 'a b/c' WHEN id % 3 = 1 THEN NULL ELSE 'ü' END AS part
FROM range(0, 40)"""


def test_delta_rs_reads_what_txlog_wrote(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    df = spark.sql(_ROWS).repartition(3)
    first = txlog.write(df, path, partition_by=["part"])
    assert isinstance(first, txlog.WriteResult)
    assert (first.version, first.committed, first.num_output_rows) == (0, True, 40)
    again = txlog.write(df.where("id < 10"), path, mode="append")
    assert again.version == 1 and again.num_output_rows == 10
    table = deltalake.DeltaTable(path)
    assert table.version() == 1
    theirs = table.to_pyarrow_table()
    expected = df.unionByName(df.where("id < 10"))
    assert _rows(theirs) == _rows(_arrow(expected.select(*theirs.column_names)))
    adds = pa.table(table.get_add_actions(flatten=True)).to_pylist()
    assert len(adds) == first.num_files + again.num_files
    assert sum(a["num_records"] for a in adds) == 50
    ours = txlog.DeltaLog.for_table(spark, path).read()
    assert _rows(_arrow(ours)) == _rows(_arrow(expected.select(*ours.columns)))
    assert_df_equality(ours.drop("m"), expected.select(*ours.columns).drop("m"),
                       ignore_row_order=True, ignore_nullable=True)


def test_overwrite_and_ignore(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    txlog.write(spark.range(5), path)
    over = txlog.write(spark.range(100, 102), path, mode="overwrite")
    assert over.version == 1 and over.num_removed_files >= 1
    assert sorted(deltalake.DeltaTable(path).to_pyarrow_table()["id"].to_pylist()) == [100, 101]
    ignored = txlog.write(spark.range(3), path, mode="ignore")
    assert not ignored.committed and ignored.version == 1
    with pytest.raises(errors.TableExistsError):
        txlog.write(spark.range(3), path, mode="error")
    done = txlog.write(spark.range(3), path, txn_app_id="job", txn_version=4)
    skipped = txlog.write(spark.range(3), path, txn_app_id="job", txn_version=4)
    assert done.committed and not skipped.committed and skipped.version == done.version


def test_bad_writes_are_refused(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    txlog.write(spark.sql("SELECT id, 'a' AS s FROM range(3)"), path)
    with pytest.raises(errors.SchemaMismatchError):
        txlog.write(spark.sql("SELECT id, 1 AS s FROM range(3)"), path)
    with pytest.raises(ValueError, match="mode"):
        txlog.write(spark.range(1), path, mode="upsert")
    with pytest.raises(TypeError, match="df"):
        txlog.write([1, 2], path)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="partition_by"):
        txlog.write(spark.range(1), path, partition_by="id")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="txn_app_id"):
        txlog.write(spark.range(1), path, txn_app_id="a")
    notnull = str(tmp_path / "nn")
    txlog.create_table(spark, notnull, "id BIGINT NOT NULL")
    with pytest.raises(errors.ConstraintViolationError, match="id"):
        txlog.write(spark.sql("SELECT CAST(NULL AS BIGINT) AS id"), notnull)
    assert deltalake.DeltaTable(path).version() == 0
    assert deltalake.DeltaTable(notnull).version() == 0


def test_merge_and_overwrite_schema(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    txlog.write(spark.sql("SELECT id FROM range(2)"), path)
    merged = txlog.write(spark.sql("SELECT id, concat('v', id) AS v FROM range(2, 3)"), path,
                         merge_schema=True)
    assert merged.version == 1
    table = deltalake.DeltaTable(path)
    assert [f.name for f in table.schema().fields] == ["id", "v"]
    rows = sorted(table.to_pyarrow_table().to_pylist(), key=lambda r: r["id"])
    assert rows == [{"id": 0, "v": None}, {"id": 1, "v": None}, {"id": 2, "v": "v2"}]
    with pytest.raises(TypeError, match="merge_schema"):
        txlog.write(spark.range(1), path, merge_schema="true")  # type: ignore[arg-type]
    with pytest.raises(errors.InvalidArgumentError, match="overwriteSchema"):
        txlog.write(spark.range(1), path, overwrite_schema=True)
    over = txlog.write(spark.sql("SELECT CAST(id AS STRING) AS id FROM range(1)"), path,
                       mode="overwrite", overwrite_schema=True)
    assert over.version == 2
    table = deltalake.DeltaTable(path)
    assert table.version() == 2 and table.to_pyarrow_table().to_pylist() == [{"id": "0"}]


def test_replace_where_and_delete(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    rows = spark.sql("SELECT id, CAST(id % 3 AS STRING) AS p FROM range(9)")
    txlog.write(rows, path, partition_by=["p"])
    r = txlog.write(spark.sql("SELECT 100L AS id, '0' AS p"), path, mode="overwrite",
                    replace_where="p = '0'")
    assert r.num_removed_files >= 1 and r.num_output_rows == 1
    ids = sorted(deltalake.DeltaTable(path).to_pyarrow_table()["id"].to_pylist())
    assert ids == [1, 2, 4, 5, 7, 8, 100]
    with pytest.raises(errors.ConstraintViolationError, match="replaceWhere"):
        txlog.write(spark.sql("SELECT 5L AS id, '1' AS p"), path, mode="overwrite",
                    replace_where="p = '0'")
    with pytest.raises(ValueError, match="replace_where"):
        txlog.write(rows, path, replace_where="p = '0'")
    log = txlog.DeltaLog.for_table(spark, path)
    d = log.delete("p IN ('1', '2')")
    assert isinstance(d, txlog.DeleteResult)
    assert d.committed and d.num_deleted_rows == 6 and d.version == 2
    assert deltalake.DeltaTable(path).to_pyarrow_table()["id"].to_pylist() == [100]
    # a data column on a table without deletion vectors: its files rewritten without the rows
    c = log.delete("id > 3")
    assert c.committed and c.num_deleted_rows == 1 and c.num_removed_files == 1
    assert deltalake.DeltaTable(path).to_pyarrow_table()["id"].to_pylist() == []
    with pytest.raises(errors.InvalidArgumentError, match="nope"):
        log.delete("nope > 3")
    assert log.delete("p = 'none'").committed is False


def test_delete_by_deletion_vectors_is_what_delta_rs_reads(spark: SparkSession,
                                                          tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    rows = spark.sql("SELECT id, CAST(id % 2 AS STRING) AS p FROM range(20)")
    txlog.write(rows.coalesce(1), path, partition_by=["p"],
                properties={"delta.enableDeletionVectors": "true"})
    log = txlog.DeltaLog.for_table(spark, path)
    first = log.delete("id % 3 = 0")
    assert first.committed and first.num_deleted_rows == 7 and first.num_removed_files == 0
    second = log.delete("id < 5 AND p = '1'")
    assert second.num_deleted_rows == 1  # ids 1 and 3; 3 is gone already
    expected = [i for i in range(20) if i % 3 != 0 and not (i < 5 and i % 2 == 1)]
    ids = deltalake.DeltaTable(path).scan(columns=["id"]).read_all().column("id").to_pylist()
    assert sorted(ids) == expected
    files = log.update().all_files().where("deletionVector IS NOT NULL").count()
    assert files == 2


def _rs_merged(path: Path) -> list[list[object]]:
    """The rows (id, v) delta-rs reads, deletion vectors applied, sorted."""
    table = deltalake.DeltaTable(str(path)).scan(columns=["id", "v"]).read_all()
    return sorted([list(r) for r in zip(table.column("id").to_pylist(),
                                        table.column("v").to_pylist())])


@pytest.mark.parametrize("dvs", ["true", "false"])
def test_merge_is_what_delta_rs_reads(spark: SparkSession, tmp_path: Path, dvs: str) -> None:
    """SQL MERGE and DataFrame.mergeInto on a table by name (the tests' session catalog is
    txlog's): matched rows updated and deleted (by deletion vectors, or without them by rewriting
    the touched files), new rows inserted; delta-rs reads the rows the statements say, and the
    history records the MERGEs."""
    path = tmp_path / "m"
    spark.sql("CREATE TABLE merge_rows (id BIGINT, v STRING) USING txlog "
              f"LOCATION '{path}' TBLPROPERTIES ('delta.enableDeletionVectors' = '{dvs}')")
    try:
        spark.sql("INSERT INTO merge_rows SELECT id, 'old' FROM range(6)")
        spark.createDataFrame([(1, "new"), (2, "drop"), (9, "ins")], "id BIGINT, v STRING") \
            .createOrReplaceTempView("merge_src")
        spark.sql("MERGE INTO merge_rows t USING merge_src s ON t.id = s.id "
                  "WHEN MATCHED AND s.v = 'drop' THEN DELETE "
                  "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
        expected = [[0, "old"], [1, "new"], [3, "old"], [4, "old"], [5, "old"], [9, "ins"]]
        assert _rs_merged(path) == expected
        history = spark.sql("DESCRIBE HISTORY merge_rows LIMIT 1").collect()[0]
        assert history["operation"] == "MERGE"
        m = history["operationMetrics"]
        assert (m["numTargetRowsUpdated"], m["numTargetRowsDeleted"],
                m["numTargetRowsInserted"]) == ("1", "1", "1")
        vectors = [f for f in os.listdir(path) if f.startswith("deletion_vector")]
        assert bool(vectors) == (dvs == "true")
        if hasattr(spark.table("merge_src"), "mergeInto"):  # pyspark 4.0 and later
            from pyspark.sql.functions import col, expr
            src = spark.createDataFrame([(0, "df"), (7, "df")], "id BIGINT, v STRING")
            src.alias("s").mergeInto("merge_rows", expr("merge_rows.id = s.id")) \
                .whenMatched().update({"v": col("s.v")}) \
                .whenNotMatched().insertAll() \
                .merge()
            expected = [[0, "df"]] + expected[1:] + [[7, "df"]]
            assert _rs_merged(path) == sorted(expected)
    finally:
        spark.sql("DROP TABLE IF EXISTS merge_rows")


def test_optimize_compacts_and_delta_rs_reads_the_same_rows(spark: SparkSession,
                                                            tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    rows = spark.sql("SELECT id, CAST(id % 2 AS STRING) AS p FROM range(100)")
    txlog.write(rows.repartition(5), path, partition_by=["p"])
    txlog.write(rows.repartition(5), path)
    log = txlog.DeltaLog.for_table(spark, path)
    before = sorted(deltalake.DeltaTable(path).to_pyarrow_table()["id"].to_pylist())
    dry = log.optimize(dry_run=True)
    assert isinstance(dry, txlog.OptimizeResult) and dry.dry_run and not dry.committed
    assert dry.num_removed_files == 20 and dry.num_bins == 2
    r = log.optimize()
    assert r.committed and r.num_added_files == 2 and r.num_removed_files == 20
    table = deltalake.DeltaTable(path)
    assert len(table.file_uris()) == 2
    assert sorted(table.to_pyarrow_table()["id"].to_pylist()) == before
    with pytest.raises(errors.InvalidArgumentError):
        log.optimize(where="id > 3")
    with pytest.raises(TypeError, match="dry_run"):
        log.optimize(dry_run="yes")  # type: ignore[arg-type]


def test_purge_deletion_vectors(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    """A DV fixture (delta-spark wrote ids 0-9 in two files, then its v1 DELETE of `id < 2` left
    a deletion vector on the first) copied, then purged: that file rewritten without those rows
    or a vector."""
    import shutil

    path = tmp_path / "t"
    shutil.copytree(fixtures / "kernel" / "basic-dv-no-checkpoint", path)
    log = txlog.DeltaLog.for_table(spark, str(path))
    expected = sorted(r.id for r in log.read().collect())
    assert expected == [2, 3, 4, 5, 6, 7, 8, 9]
    dry = log.purge_deletion_vectors(dry_run=True)
    assert dry.dry_run and not dry.committed and dry.num_removed_files == 1
    assert log.update().version == 1
    r = log.purge_deletion_vectors()
    assert r.committed and r.version == 2 and r.num_added_files == 1
    assert r.num_conflicted_bins == 0
    snap = log.update()
    assert snap.all_files().where("deletionVector IS NOT NULL").count() == 0
    assert sorted(row.id for row in log.read().collect()) == expected
    assert log.purge_deletion_vectors().committed is False
    with pytest.raises(TypeError, match="where"):
        log.purge_deletion_vectors(where=3)  # type: ignore[arg-type]


def test_writes_fail_closed(spark: SparkSession, tmp_path: Path) -> None:
    """Issue 60's refusals from Python, typed, with nothing committed or left behind; what is
    written stays readable by delta-rs (a null nested NOT NULL field made it unreadable)."""
    path = str(tmp_path / "t")

    def state() -> tuple[set[str], int]:
        files = {str(p) for p in Path(path).rglob("*.parquet") if "_delta_log" not in str(p)}
        return files, deltalake.DeltaTable(path).version()

    schema = StructType([
        StructField("s", StructType([StructField("a", IntegerType(), False),
                                     StructField("b", IntegerType())])),
        StructField("v", StringType(), metadata={"__CHAR_VARCHAR_TYPE_STRING": "varchar(3)"}),
    ])
    log = txlog.create_table(spark, path, schema)
    before = state()
    bad = [
        "SELECT named_struct('a', CAST(NULL AS INT), 'b', 1) AS s, 'x' AS v",
        "SELECT CAST(NULL AS STRUCT<a: INT, b: INT>) AS s, 'x' AS v",
        "SELECT named_struct('a', 1, 'b', 1) AS s, 'abcd' AS v",
    ]
    for sql in bad:
        with pytest.raises(errors.ConstraintViolationError):
            txlog.write(spark.sql(sql), path)
        assert state() == before
    txlog.write(spark.sql("SELECT named_struct('a', CAST(id AS INT), 'b', CAST(NULL AS INT)) AS s,"
                          " 'abc' AS v FROM range(2)"), path)
    got = deltalake.DeltaTable(path).to_pyarrow_table().to_pylist()
    assert sorted(got, key=lambda r: r["s"]["a"]) == [
        {"s": {"a": 0, "b": None}, "v": "abc"}, {"s": {"a": 1, "b": None}, "v": "abc"}]
    # a constraint the rows break, and one that does not parse
    before = state()
    with pytest.raises(errors.ConstraintViolationError, match="CHECK big"):
        log.start_transaction().update_metadata(
            properties={"delta.constraints.big": "s.a > 0"}).commit("ADD CONSTRAINT")
    with pytest.raises(errors.InvalidMetadataError, match="does not parse"):
        log.start_transaction().update_metadata(properties={"delta.constraints.x": "s.a >"})
    assert state() == before
    # a malformed invariant: typed, and no table made
    other = str(tmp_path / "o")
    broken = StructType([StructField("id", IntegerType(),
                                     metadata={"delta.invariants": "{not json"})])
    with pytest.raises(errors.InvalidMetadataError, match="invariant"):
        txlog.create_table(spark, other, broken)
    assert not (Path(other) / "_delta_log").exists()


def test_create_table_keeps_a_partition_column_name_with_a_comma(spark: SparkSession,
                                                                  tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    log = txlog.create_table(spark, path, "`a,b` STRING, id BIGINT", partition_by=["a,b"],
                             properties={"delta.columnMapping.mode": "name"})
    assert list(log.snapshot().metadata.partition_columns) == ["a,b"]
    txlog.write(spark.sql("SELECT 'x' AS `a,b`, 1L AS id"), path)
    # delta-rs's to_pyarrow_table reads column-mapped data columns as nulls (delta-spark's
    # tables too); its DataFusion reader maps them
    query = deltalake.QueryBuilder().register("t", deltalake.DeltaTable(path))
    got = pa.table(query.execute("SELECT * FROM t").read_all()).to_pylist()
    assert got == [{"a,b": "x", "id": 1}]


def test_identity_columns_are_generated(spark: SparkSession, tmp_path: Path) -> None:
    """A table with a GENERATED ALWAYS identity column (start 100, step 10): writes and MERGE
    inserts that leave it out get values generated, each ``100 + 10k``, none twice, the high water
    mark at the furthest; values given for it are IdentityColumnError, nothing committed; delta-rs
    reads the rows."""
    from pyspark.sql.types import LongType

    identity = {"delta.identity.start": 100, "delta.identity.step": 10,
                "delta.identity.allowExplicitInsert": False}
    schema = StructType([StructField("id", LongType(), True, identity),
                         StructField("v", StringType(), True)])
    path = str(tmp_path / "ids")
    log = txlog.create_table(spark, path, schema)
    txlog.write(spark.range(0, 7, 1, 3).selectExpr("concat('r', id) AS v"), path)
    with pytest.raises(errors.IdentityColumnError):
        txlog.write(spark.sql("SELECT 5L AS id, 'x' AS v"), path)
    source = spark.createDataFrame([("r1", "R1"), ("new", "NEW")], "v STRING, w STRING")
    merged = log.merge(source.alias("s"), "target.v = s.v") \
        .when_matched_update({"v": "s.w"}) \
        .when_not_matched_insert({"v": "s.w"}) \
        .execute()
    assert (merged.num_updated_rows, merged.num_inserted_rows) == (1, 1)
    table = deltalake.DeltaTable(path)
    assert table.version() == log.snapshot().version == 2
    rows = table.to_pyarrow_table().to_pylist()
    ids = [r["id"] for r in rows]
    assert sorted(r["v"] for r in rows) == ["NEW", "R1", "r0", "r2", "r3", "r4", "r5", "r6"]
    assert len(set(ids)) == 8 and all(i >= 100 and (i - 100) % 10 == 0 for i in ids), rows
    field = log.snapshot().metadata.schema["id"]
    assert field.metadata["delta.identity.highWaterMark"] == max(ids)
