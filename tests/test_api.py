"""The Python API on the shared fixtures and on small tables made in tmp_path."""

from __future__ import annotations

import json
import os
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import (
    BooleanType, ByteType, DateType, DecimalType, DoubleType, FloatType, IntegerType, LongType,
    ShortType, StringType, StructType, TimestampType,
)

from txlog import DeltaLog, Metadata, Protocol, Snapshot
from txlog.errors import TimestampOutOfRangeError, VersionNotFoundError
from txlog_testing import commit_file, copy_table, is_dataframe

TIME_TRAVEL = "golden/time-travel-start-start20-start40"


def log_of(spark: SparkSession, fixtures: Path, name: str) -> DeltaLog:
    return DeltaLog.for_table(spark, fixtures / name)


# --------------------------------------------------------------------------- latest snapshot

def test_latest_snapshot_fields(spark: SparkSession, fixtures: Path) -> None:
    log = log_of(spark, fixtures, "golden/data-reader-partition-values")
    assert log.table_path == "file:" + str(fixtures / "golden/data-reader-partition-values")
    snap = log.snapshot()
    assert isinstance(snap, Snapshot)
    assert snap.version == 0
    assert snap.table_path == log.table_path
    assert snap.checkpoint_version is None
    assert snap.timestamp.tzinfo is not None and snap.timestamp.utcoffset() == timedelta(0)
    # Commit timestamps come from the commit file's modification time.
    mtime = os.stat(commit_file(fixtures / "golden/data-reader-partition-values", 0)).st_mtime
    assert abs(snap.timestamp.timestamp() - mtime) < 0.002

    assert snap.protocol == Protocol(1, 2, None, None)
    md = snap.metadata
    assert isinstance(md, Metadata)
    assert md.format_provider == "parquet" and md.format_options == {}
    assert md.partition_columns == (
        "as_int", "as_long", "as_byte", "as_short", "as_boolean", "as_float", "as_double",
        "as_string", "as_string_lit_null", "as_date", "as_timestamp", "as_big_decimal")
    assert isinstance(md.schema, StructType)
    assert md.schema == StructType.fromJson(json.loads(md.schema_string))
    assert "as_int" in md.schema.fieldNames() and "value" in md.schema.fieldNames()
    assert isinstance(md.created_time, int)
    assert md.configuration == {}
    # Usable as a dict key despite its dict fields: an equal Metadata read by another DeltaLog
    # finds the entry, a different table's does not.
    again = log_of(spark, fixtures, "golden/data-reader-partition-values").snapshot().metadata
    other = log_of(spark, fixtures, TIME_TRAVEL).snapshot().metadata
    assert again is not md and again == md and other != md
    assert {md: "entry"}.get(again) == "entry" and {md: "entry"}.get(other) is None
    with pytest.raises(AttributeError):
        md.id = "x"  # type: ignore[misc]

    assert isinstance(snap.table_properties, dict)
    assert snap.set_transactions == {}
    assert snap.domain_metadata == {}
    assert snap.num_files == 3
    import pyarrow as pa
    from deltalake import DeltaTable
    rs = pa.table(DeltaTable(str(fixtures / "golden/data-reader-partition-values"))
                  .get_add_actions(flatten=True))
    assert snap.size_in_bytes == sum(rs.column("size_bytes").to_pylist())  # delta-rs's sizes
    assert snap.num_tombstones == 0
    assert "version=0" in repr(snap)


def test_checkpoint_and_transactions(spark: SparkSession, fixtures: Path) -> None:
    snap = log_of(spark, fixtures, "golden/checkpoint").snapshot()
    assert snap.version == 14
    assert snap.checkpoint_version == 10
    assert snap.num_files == 1

    snap = log_of(spark, fixtures, "golden/deltalog-getChanges").snapshot()
    assert snap.set_transactions == {"fakeAppId": 3}
    snap = log_of(spark, fixtures, "spark/delta-0.1.0").snapshot()
    assert snap.set_transactions == {"txnId": 0}


@pytest.mark.classic_only
def test_wide_table_described_in_parts(spark: SparkSession, tmp_path: Path) -> None:
    """A description longer than one py4j answer (8 KiB) comes in parts and reads back whole,
    non-ASCII names included: the same schema, id and configuration delta-rs reads."""
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    from txlog._gateway import call

    names = [f"column_{i:03d}_é€" for i in range(300)]
    data = pa.table({n: pa.array([i], pa.int64()) for i, n in enumerate(names)})
    write_deltalake(str(tmp_path / "wide"), data, configuration={"delta.appendOnly": "true"})
    oracle = DeltaTable(str(tmp_path / "wide")).metadata()

    snap = DeltaLog.for_table(spark, tmp_path / "wide").snapshot()
    assert not isinstance(call(snap._facade.describe, snap._jsnapshot), str)  # in parts
    md = snap.metadata
    assert md.schema.fieldNames() == names
    assert md.id == oracle.id and md.configuration == oracle.configuration
    assert snap.version == 0 and snap.num_files == 1


def test_metadata_without_schema_string(spark: SparkSession, fixtures: Path) -> None:
    md = log_of(spark, fixtures, "golden/deltalog-commit-info").snapshot().metadata
    assert md.schema_string is None
    assert md.schema == StructType([])


def test_table_features_protocol(spark: SparkSession, fixtures: Path) -> None:
    snap = log_of(spark, fixtures, "golden/collations-table").snapshot()
    p = snap.protocol
    assert (p.min_reader_version, p.min_writer_version) == (1, 7)
    assert p.reader_features is None
    assert p.writer_features == frozenset({"domainMetadata", "collations", "appendOnly",
                                           "invariants"})


def write_commit(table: Path, version: int, actions: list[dict[str, object]]) -> None:
    log_dir = table / "_delta_log"
    log_dir.mkdir(parents=True, exist_ok=True)
    text = "\n".join(json.dumps(a) for a in actions) + "\n"
    commit_file(table, version).write_text(text)


SCHEMA = json.dumps({"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": True, "metadata": {}},
    {"name": "p", "type": "string", "nullable": True, "metadata": {}}]})


def test_domain_metadata_and_transactions(spark: SparkSession, tmp_path: Path) -> None:
    table = tmp_path / "t"
    write_commit(table, 0, [
        {"commitInfo": {"timestamp": 1700000000000, "operation": "WRITE"}},
        {"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
                      "writerFeatures": ["domainMetadata"]}},
        {"metaData": {"id": "tid", "name": "events", "description": "demo",
                      "format": {"provider": "parquet", "options": {}}, "schemaString": SCHEMA,
                      "partitionColumns": ["p"], "configuration": {"delta.appendOnly": "true"},
                      "createdTime": 1700000000000}},
        {"domainMetadata": {"domain": "app.example", "configuration": "{\"k\":1}",
                            "removed": False}},
        {"txn": {"appId": "stream-1", "version": 7}},
        {"add": {"path": "p=a/f1.parquet", "partitionValues": {"p": "a"}, "size": 10,
                 "modificationTime": 1, "dataChange": True,
                 "stats": "{\"numRecords\":3,\"minValues\":{\"id\":1},\"maxValues\":{\"id\":5},"
                          "\"nullCount\":{\"id\":0}}"}},
    ])
    snap = DeltaLog.for_table(spark, str(table)).snapshot()
    assert snap.domain_metadata == {"app.example": "{\"k\":1}"}
    assert snap.set_transactions == {"stream-1": 7}
    md = snap.metadata
    assert (md.id, md.name, md.description) == ("tid", "events", "demo")
    assert md.partition_columns == ("p",)
    assert md.configuration == {"delta.appendOnly": "true"}
    assert snap.table_properties["delta.appendOnly"] == "true"
    assert md.created_time == 1700000000000
    assert snap.protocol.writer_features == frozenset({"domainMetadata"})
    row = snap.all_files().select("path", "partitionValues_parsed.p", "stats_parsed.numRecords",
                                  "stats_parsed.minValues.id").collect()
    assert [tuple(r) for r in row] == [("p=a/f1.parquet", "a", 3, 1)]


# --------------------------------------------------------------------------- all_files

def test_all_files_columns(spark: SparkSession, fixtures: Path) -> None:
    df = log_of(spark, fixtures, "golden/data-reader-partition-values").snapshot().all_files()
    assert is_dataframe(df)
    cols = set(df.columns)
    assert {"path", "size", "partitionValues", "modificationTime", "dataChange", "stats",
            "partitionValues_parsed", "stats_parsed"} <= cols
    schema = {f.name: f.dataType for f in df.schema.fields}
    assert schema["size"] == LongType()
    parsed = {f.name: f.dataType for f in schema["partitionValues_parsed"].fields}
    assert parsed == {
        "as_int": IntegerType(), "as_long": LongType(), "as_byte": ByteType(),
        "as_short": ShortType(), "as_boolean": BooleanType(), "as_float": FloatType(),
        "as_double": DoubleType(), "as_string": StringType(), "as_string_lit_null": StringType(),
        "as_date": DateType(), "as_timestamp": TimestampType(), "as_big_decimal": DecimalType(1, 0),
    }
    rows = df.select("partitionValues_parsed.*").orderBy("as_int").collect()
    assert len(rows) == 3
    nulls = [r for r in rows if r.as_int is None]
    assert len(nulls) == 1 and all(v is None for v in nulls[0])
    one = next(r for r in rows if r.as_int == 1)
    assert one.as_boolean is False and one.as_date == date(2021, 9, 8)
    assert one.as_string_lit_null == "null"


def test_all_files_stats(spark: SparkSession, fixtures: Path) -> None:
    df = log_of(spark, fixtures, "golden/data-skipping-basic-stats-all-types").snapshot().all_files()
    stats_fields = {f.name for f in df.schema["stats_parsed"].dataType.fields}
    assert {"numRecords", "minValues", "maxValues", "nullCount", "tightBounds"} <= stats_fields
    (row,) = df.selectExpr("stats_parsed.numRecords AS n", "stats_parsed.minValues.as_int AS lo",
                           "stats_parsed.maxValues.as_int AS hi",
                           "stats_parsed.nullCount.as_int AS nulls").collect()
    import pyarrow as pa
    from deltalake import DeltaTable
    (rs,) = pa.table(DeltaTable(str(fixtures / "golden/data-skipping-basic-stats-all-types"))
                     .get_add_actions(flatten=True)).to_pylist()  # delta-rs's reading
    assert (row.n, row.lo, row.hi, row.nulls) == (
        rs["num_records"], rs["min.as_int"], rs["max.as_int"], rs["null_count.as_int"])


def test_tombstones(spark: SparkSession, fixtures: Path) -> None:
    snap = log_of(spark, fixtures, "golden/snapshot-data2-deleted").snapshot()
    df = snap.tombstones()
    assert {"path", "deletionTimestamp", "dataChange"} <= set(df.columns)
    # The log removes six files (commits 2 and 4), all deleted long before the default
    # tombstone retention of one week (the spec's delta.deletedFileRetentionDuration): expired,
    # so none is kept.
    assert df.count() == snap.num_tombstones == 0


@pytest.mark.classic_only
def test_cache_and_unpersist(spark: SparkSession, fixtures: Path) -> None:
    snap = log_of(spark, fixtures, "golden/checkpoint").snapshot()
    assert snap.cache() is snap
    assert snap._jsnapshot.isCached()
    assert snap.num_files == 1
    snap.unpersist()
    assert not snap._jsnapshot.isCached()


# --------------------------------------------------------------------------- time travel

def test_time_travel_by_version(spark: SparkSession, fixtures: Path) -> None:
    log = log_of(spark, fixtures, TIME_TRAVEL)
    assert log.snapshot().version == 2
    for version, files in [(0, 2), (1, 4), (2, 6)]:
        snap = log.snapshot(version=version)
        assert snap.version == version
        assert snap.num_files == files
        assert snap.all_files().count() == files
    with pytest.raises(VersionNotFoundError, match="version 3"):
        log.snapshot(version=3)


@pytest.fixture
def dated_table(tmp_path: Path, fixtures: Path) -> Path:
    """A copy of the time-travel table whose commit files have known modification times."""
    table = copy_table(fixtures / TIME_TRAVEL, tmp_path / "tt")
    for version, when in enumerate(COMMIT_TIMES):
        ts = when.timestamp()
        os.utime(commit_file(table, version), (ts, ts))
    return table


COMMIT_TIMES = [
    datetime(2023, 12, 30, 12, 0, 0, tzinfo=timezone.utc),
    datetime(2024, 1, 1, 12, 0, 0, tzinfo=timezone.utc),
    datetime(2024, 1, 3, 12, 0, 0, tzinfo=timezone.utc),
]


def jvm_local_text(instant: datetime, zone: str) -> str:
    """`yyyy-MM-dd HH:mm:ss` of an instant in the JVM's zone."""
    return instant.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S")


def test_snapshot_timestamps(spark: SparkSession, dated_table: Path) -> None:
    log = DeltaLog.for_table(spark, dated_table)
    for version, when in enumerate(COMMIT_TIMES):
        assert log.snapshot(version=version).timestamp == when


def test_time_travel_by_timestamp_string(spark: SparkSession, dated_table: Path,
                                         jvm_zone: str) -> None:
    log = DeltaLog.for_table(spark, dated_table)
    t0, t1, t2 = COMMIT_TIMES
    hour = timedelta(hours=1)
    # Local time of the JVM.
    assert log.snapshot(timestamp=jvm_local_text(t0 + hour, jvm_zone)).version == 0
    assert log.snapshot(timestamp=jvm_local_text(t1, jvm_zone)).version == 1
    assert log.snapshot(timestamp=jvm_local_text(t2 - hour, jvm_zone)).version == 1
    assert log.snapshot(timestamp=jvm_local_text(t2, jvm_zone)).version == 2
    # ISO-8601 instants.
    assert log.snapshot(timestamp="2024-01-01T12:00:00Z").version == 1
    assert log.snapshot(timestamp="2024-01-01T11:59:59.999Z").version == 0
    assert log.snapshot(timestamp="2024-01-03T17:30:00+05:30").version == 2


def test_time_travel_by_datetime(spark: SparkSession, dated_table: Path, jvm_zone: str) -> None:
    log = DeltaLog.for_table(spark, dated_table)
    t0, t1, t2 = COMMIT_TIMES
    # Aware datetimes: converted to UTC.
    assert log.snapshot(timestamp=t1).version == 1
    assert log.snapshot(timestamp=t1 - timedelta(microseconds=1000)).version == 0
    tokyo = ZoneInfo("Asia/Tokyo")
    assert log.snapshot(timestamp=t2.astimezone(tokyo)).version == 2
    assert log.snapshot(timestamp=(t2 - timedelta(seconds=1)).astimezone(tokyo)).version == 1
    # Naive datetimes: read in the JVM's local time zone.
    naive = (t1 + timedelta(minutes=5)).astimezone(ZoneInfo(jvm_zone)).replace(tzinfo=None)
    assert log.snapshot(timestamp=naive).version == 1
    naive = (t1 - timedelta(minutes=5)).astimezone(ZoneInfo(jvm_zone)).replace(tzinfo=None)
    assert log.snapshot(timestamp=naive).version == 0
    # Dates: midnight in the JVM's zone (2024-01-02 lies between commits 1 and 2).
    assert log.snapshot(timestamp=date(2024, 1, 2)).version == 1
    assert log.snapshot(timestamp="2024-01-02").version == 1


def test_time_travel_out_of_range(spark: SparkSession, dated_table: Path) -> None:
    log = DeltaLog.for_table(spark, dated_table)
    with pytest.raises(TimestampOutOfRangeError) as info:
        log.snapshot(timestamp="2020-01-01 00:00:00")
    assert info.value.error_class == "TIMESTAMP_OUT_OF_RANGE"
    assert isinstance(info.value, VersionNotFoundError)
    with pytest.raises(TimestampOutOfRangeError):
        log.snapshot(timestamp=datetime(2030, 1, 1, tzinfo=timezone.utc))


def test_time_travel_on_fixture_timestamps(spark: SparkSession, fixtures: Path) -> None:
    """On the read-only fixture: each version's own timestamp selects it. A commit's time is
    its file's modification time, made (as in delta-spark) at least 1 ms after the one
    before, since the fixture's files may share one time."""
    log = log_of(spark, fixtures, TIME_TRAVEL)
    expected: list[int] = []
    for v in range(3):
        mtime = os.stat(commit_file(fixtures / TIME_TRAVEL, v)).st_mtime_ns // 1_000_000
        expected.append(max(mtime, expected[-1] + 1) if expected else mtime)
    for version in range(3):
        ts = log.snapshot(version=version).timestamp
        assert round(ts.timestamp() * 1000) == expected[version]
        assert log.snapshot(timestamp=ts).version == version
        iso = ts.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
        assert log.snapshot(timestamp=iso).version == version


# --------------------------------------------------------------------------- update / history

def make_table(path: Path, rows: int) -> None:
    import pyarrow as pa
    from deltalake import write_deltalake

    write_deltalake(str(path), pa.table({"id": pa.array(range(rows), pa.int64())}), mode="append")


def test_update(spark: SparkSession, tmp_path: Path) -> None:
    table = tmp_path / "grow"
    make_table(table, 3)
    log = DeltaLog.for_table(spark, table)
    first = log.update()
    assert first.version == 0 and first.num_files == 1
    assert log.update().version == 0
    make_table(table, 2)
    second = log.update()
    assert second.version == 1 and second.num_files == 2
    # From a cached snapshot.
    log.snapshot().cache()
    make_table(table, 1)
    make_table(table, 1)
    third = log.update()
    assert third.version == 3 and third.num_files == 4
    third.unpersist()


def test_history(spark: SparkSession, fixtures: Path) -> None:
    df = log_of(spark, fixtures, TIME_TRAVEL).history()
    assert is_dataframe(df)
    assert {"version", "timestamp", "operation", "operationParameters", "readVersion",
            "isBlindAppend", "userMetadata", "engineInfo"} <= set(df.columns)
    assert df.columns[:2] == ["version", "timestamp"]
    rows = df.collect()
    assert [r.version for r in rows] == [2, 1, 0]
    assert {r.operation for r in rows} == {"WRITE"}
    assert rows[-1].operationParameters["mode"] == "Append"
