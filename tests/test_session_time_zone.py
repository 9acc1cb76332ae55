"""Timestamp strings, naive datetimes and dates are read in the Spark session time zone
(``spark.sql.session.timeZone``), as delta-spark reads ``timestampAsOf``, not the JVM's."""

from __future__ import annotations

import os
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Iterator

import pytest
from pyspark.sql import SparkSession

from txlog import DeltaLog
from txlog_testing import commit_file, copy_table

# Commits at these instants; the session zone (UTC-8 in January) differs from the JVM's
# (Asia/Kolkata, UTC+5:30, see conftest.py).
SESSION_ZONE = "America/Los_Angeles"
COMMIT_TIMES = [
    datetime(2024, 1, 1, 0, 0, 0, tzinfo=timezone.utc),
    datetime(2024, 1, 1, 6, 0, 0, tzinfo=timezone.utc),
    datetime(2024, 1, 1, 12, 0, 0, tzinfo=timezone.utc),
]


@pytest.fixture
def table(tmp_path: Path, fixtures: Path) -> Path:
    t = copy_table(fixtures / "golden/time-travel-start-start20-start40", tmp_path / "tt")
    for version, when in enumerate(COMMIT_TIMES):
        os.utime(commit_file(t, version), (when.timestamp(), when.timestamp()))
    return t


@pytest.fixture
def session_zone(spark: SparkSession, jvm_zone: str) -> Iterator[str]:
    assert jvm_zone != SESSION_ZONE
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", SESSION_ZONE)
    yield SESSION_ZONE
    spark.conf.set("spark.sql.session.timeZone", before)


def test_strings_are_read_in_the_session_time_zone(
        spark: SparkSession, table: Path, session_zone: str) -> None:
    log = DeltaLog.for_table(spark, table)
    # 2023-12-31 20:00 in Los Angeles is 2024-01-01 04:00 UTC: after commit 0, before commit 1.
    # (In the JVM's zone it would be 14:30 UTC, the day before: out of range.)
    assert log.snapshot(timestamp="2023-12-31 20:00:00").version == 0
    # 2023-12-31 22:30 in Los Angeles is 06:30 UTC: commit 1.
    assert log.snapshot(timestamp="2023-12-31 22:30:00").version == 1
    # Midnight of 2024-01-01 in Los Angeles is 08:00 UTC: commit 1.
    assert log.snapshot(timestamp="2024-01-01").version == 1
    # With its own offset, the zone does not matter.
    assert log.snapshot(timestamp="2024-01-01T06:00:00Z").version == 1


def test_naive_datetimes_and_dates_follow_the_session_time_zone(
        spark: SparkSession, table: Path, session_zone: str) -> None:
    log = DeltaLog.for_table(spark, table)
    assert log.snapshot(timestamp=datetime(2023, 12, 31, 20, 0, 0)).version == 0
    assert log.snapshot(timestamp=datetime(2023, 12, 31, 22, 30, 0)).version == 1
    assert log.snapshot(timestamp=date(2024, 1, 1)).version == 1
