"""Publishing a checkpoint that already exists keeps the existing file and says so."""

from __future__ import annotations

import os
from pathlib import Path

from pyspark.sql import SparkSession

from txlog import DeltaLog
from txlog_testing import copy_table

TABLE = "golden/basic-with-inserts-deletes-checkpoint"
LATEST = "00000000000000000013.checkpoint.parquet"


def test_existing_checkpoint_is_kept(spark: SparkSession, fixtures: Path,
                                     tmp_path: Path) -> None:
    copy = copy_table(fixtures / TABLE, tmp_path / "t")
    first = DeltaLog.for_table(spark, copy).checkpoint()
    assert first.already_existed is False
    assert [Path(f).name for f in first.files] == [LATEST]
    file = copy / "_delta_log" / LATEST
    os.utime(file, (1577836800, 1577836800))
    before = (file.read_bytes(), os.stat(file).st_ino, os.stat(file).st_mtime)

    again = DeltaLog.for_table(spark, copy).checkpoint()
    assert again.already_existed is True
    assert [Path(f).name for f in again.files] == [LATEST]
    assert (file.read_bytes(), os.stat(file).st_ino, os.stat(file).st_mtime) == before
    assert again.size_in_bytes == len(before[0])
