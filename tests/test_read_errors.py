"""A storage failure while reading the log is a LogReadError naming the file and its version,
not a CorruptLogError."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from txlog_testing import error_details
from txlog import DeltaLog
from txlog.errors import CorruptLogError, LogReadError

UNREADABLE = "/proc/self/mem"  # opens, but reading offset 0 fails with an I/O error


def _unreadable_file_works() -> bool:
    try:
        with open(UNREADABLE, "rb") as f:
            f.read(1)
    except OSError:
        return True
    return False


def test_unreadable_commit_is_log_read_error(spark: SparkSession, fixtures: Path,
                                             tmp_path: Path) -> None:
    if not _unreadable_file_works():
        pytest.skip(f"reading {UNREADABLE} does not fail here")
    table = tmp_path / "checkpoint"
    shutil.copytree(fixtures / "golden/checkpoint", table)
    commit = table / "_delta_log" / "00000000000000000013.json"
    commit.unlink()
    os.symlink(UNREADABLE, commit)  # listed as a file; every read of it fails
    with pytest.raises(LogReadError) as info:
        DeltaLog.for_table(spark, table).snapshot()
    err = info.value
    assert not isinstance(err, CorruptLogError)
    assert isinstance(err, OSError)
    assert err.error_class == "LOG_READ_FAILED"
    if error_details():
        assert err.file is not None and err.file.endswith("/_delta_log/00000000000000000013.json")
        assert err.version == 13
    assert err.retryable


def test_missing_data_file_in_a_task_is_data_file_not_found(spark: SparkSession,
                                                            tmp_path: Path) -> None:
    """The error a Spark task raises while reading rows reaches Python as txlog's class, through
    PySpark's own calls (``collect``, SQL), with its error class, SQLSTATE and file."""
    import txlog
    from txlog.errors import DataFileNotFoundError

    path = tmp_path / "t"
    txlog.write(spark.range(0, 4, 1, 2), str(path))
    victim = sorted(path.glob("*.parquet"))[0]
    victim.unlink()
    df = DeltaLog.for_table(spark, path).read()
    with pytest.raises(DataFileNotFoundError) as info:
        df.collect()
    err = info.value
    assert err.error_class == "DATA_FILE_NOT_FOUND"
    if error_details():
        assert err.file is not None and err.file.endswith(victim.name)
    df.createOrReplaceTempView("txlog_missing_file")
    with pytest.raises(DataFileNotFoundError):
        spark.sql("SELECT count(*) FROM txlog_missing_file WHERE id >= 0").collect()
    # another table's errors convert as PySpark converts them
    from pyspark.errors import AnalysisException
    with pytest.raises(AnalysisException):
        spark.sql("SELECT no_such_column FROM txlog_missing_file").collect()
