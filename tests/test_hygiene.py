"""Log compaction and metadata cleanup through the Python API: results, argument checks and
typed errors."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from txlog import DeltaLog
from txlog.errors import (
    CorruptLogError, InvalidArgumentError, LogFileExistsError, RetentionTooShortError,
    UnsupportedFeatureError,
)

TABLE = "golden/snapshot-data2-deleted"
DAY = 24 * 3600


def copy_of(fixtures: Path, tmp_path: Path, name: str) -> Path:
    dest = tmp_path / Path(name).name
    shutil.copytree(fixtures / name, dest)
    for root, dirs, files in os.walk(dest):
        for n in dirs + files:
            os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
    os.chmod(dest, 0o755)
    return dest


def test_compact_writes_a_used_compaction(
    spark: SparkSession, fixtures: Path, tmp_path: Path
) -> None:
    table = copy_of(fixtures, tmp_path, TABLE)
    log = DeltaLog.for_table(spark, table)
    before = sorted(r.path for r in log.snapshot().all_files().collect())
    path = log.compact(1, 3)
    assert path.endswith("00000000000000000001.00000000000000000003.compacted.json")
    assert (table / "_delta_log" / path.rsplit("/", 1)[1]).is_file()
    assert log.compact(1, 3) == path  # identical: a no-op
    assert sorted(r.path for r in log.snapshot().all_files().collect()) == before
    other = '{"txn":{"appId":"a","version":1}}\n'
    (table / "_delta_log" / path.rsplit("/", 1)[1]).write_text(other)
    with pytest.raises(LogFileExistsError) as info:
        log.compact(1, 3)
    assert info.value.error_class == "LOG_FILE_EXISTS"


def test_compact_argument_checks(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    log = DeltaLog.for_table(spark, copy_of(fixtures, tmp_path, TABLE))
    with pytest.raises(TypeError, match="start"):
        log.compact("1", 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="end"):
        log.compact(1, 2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="start"):
        log.compact(-1, 3)
    with pytest.raises(ValueError, match="start"):
        log.compact(3, 1)
    with pytest.raises(InvalidArgumentError, match="99"):
        log.compact(1, 99)


def test_compact_malformed_commit(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    # Checkpoint 10 keeps the latest snapshot from reading the corrupt commit 5.
    table = copy_of(fixtures, tmp_path, "golden/checkpoint")
    with open(table / "_delta_log" / "00000000000000000005.json", "a") as f:
        f.write('{"add": {\n')
    log = DeltaLog.for_table(spark, table)
    assert log.snapshot().version == 14
    with pytest.raises(CorruptLogError) as info:
        log.compact(4, 6)
    assert info.value.error_class == "MALFORMED_LOG_FILE"
    assert not list((table / "_delta_log").glob("*.compacted.json"))


def test_cleanup_dry_run_then_delete(
    spark: SparkSession, fixtures: Path, tmp_path: Path
) -> None:
    # Commits 0..14, commit v is (30 - v) days old; the one checkpoint is at 10.
    table = copy_of(fixtures, tmp_path, "golden/checkpoint")
    today = int(time.time()) // DAY * DAY
    for v in range(15):
        t = today - (30 - v) * DAY + 3600
        os.utime(table / "_delta_log" / f"{v:020d}.json", (t, t))
    log = DeltaLog.for_table(spark, table)
    # Cutoff: midnight 18 days ago, so the cutoff commit is 11 and checkpoint 10 covers it.
    with pytest.raises(RetentionTooShortError) as short:  # below the table's 30 days
        log.cleanup("18 days")
    assert short.value.error_class == "CLEANUP_RETENTION_TOO_SHORT"
    dry = log.cleanup("18 days", force=True).collect()
    assert dry and not any(r.deleted for r in dry)
    assert all((table / "_delta_log" / Path(r.path).name).exists() for r in dry)
    assert {r.kind for r in dry} == {"commit"}
    assert sorted(r.version for r in dry) == list(range(10))
    done = log.cleanup("18 days", dry_run=False, force=True).collect()
    assert [r.path for r in done] == [r.path for r in dry] and all(r.deleted for r in done)
    assert not any((table / "_delta_log" / Path(r.path).name).exists() for r in done)
    assert log.snapshot(version=11).version == 11


def test_cleanup_argument_checks(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    log = DeltaLog.for_table(spark, copy_of(fixtures, tmp_path, TABLE))
    with pytest.raises(TypeError, match="retention"):
        log.cleanup(30)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="retention"):
        log.cleanup(" ")
    with pytest.raises(TypeError, match="dry_run"):
        log.cleanup("1 day", dry_run="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="force"):
        log.cleanup("1 day", force="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="retention"):
        log.cleanup("whenever")
    rows = log.cleanup("30 days").collect()
    assert [r.kind for r in rows] == ["none"] and rows[0].reason


def test_unsupported_writer_feature(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = copy_of(fixtures, tmp_path, TABLE)
    (table / "_delta_log" / "00000000000000000005.json").write_text(
        '{"protocol":{"minReaderVersion":1,"minWriterVersion":7,'
        '"writerFeatures":["someFutureFeature"]}}\n'
    )
    log = DeltaLog.for_table(spark, table)
    for attempt in (lambda: log.compact(0, 2), lambda: log.cleanup("1 day", dry_run=False)):
        with pytest.raises(UnsupportedFeatureError) as info:
            attempt()
        assert info.value.error_class == "UNSUPPORTED_WRITER_FEATURES"
