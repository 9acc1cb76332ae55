"""Version checksum files (``n.crc``) through the Python API: write, validate, typed errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from txlog import DeltaLog
from txlog.errors import ChecksumNotFoundError, CorruptLogError, TxlogError
from txlog_testing import copy_table

WITH_CRC = "golden/commit-info-containing-arbitrary-operationParams-types"


def crc_file(table: Path, version: int) -> Path:
    return table / "_delta_log" / f"{version:020d}.crc"


def without_checksums(fixtures: Path, tmp_path: Path, name: str) -> Path:
    table = copy_table(fixtures / name, tmp_path / "t")
    for f in (table / "_delta_log").glob("*.crc"):
        f.unlink()  # Delta checksums and Hadoop's hidden .name.crc side files alike
    return table


def test_delta_spark_checksums_validate(spark: SparkSession, fixtures: Path) -> None:
    log = DeltaLog.for_table(spark, fixtures / WITH_CRC)
    for version in (0, 1, 2):
        df = log.validate_checksum(version)
        assert df.columns == ["version", "field", "expected", "actual"]
        assert df.count() == 0
    assert log.validate_checksum().count() == 0


def test_write_then_validate(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = without_checksums(fixtures, tmp_path, WITH_CRC)
    log = DeltaLog.for_table(spark, table)
    path = log.write_checksum(1)
    assert path.endswith("_delta_log/00000000000000000001.crc")
    assert log.write_checksum().endswith("00000000000000000002.crc")
    content = json.loads(crc_file(table, 1).read_text())
    assert content["numFiles"] == 2 and content["tableSizeBytes"] == 904
    assert content["metadata"]["configuration"] == {"delta.enableChangeDataFeed": "true"}
    assert log.validate_checksum(1).count() == 0
    assert log.validate_checksum().count() == 0


def test_never_overwrites(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = copy_table(fixtures / WITH_CRC, tmp_path / "t")
    before = crc_file(table, 0).read_bytes()
    log = DeltaLog.for_table(spark, table)
    # the writer's own checksum agrees with the log: kept, and its path returned
    assert log.write_checksum(0).endswith("00000000000000000000.crc")
    assert crc_file(table, 0).read_bytes() == before
    content = json.loads(before)
    content["numFiles"] = content["numFiles"] + 7
    tampered = json.dumps(content).encode()
    crc_file(table, 0).write_bytes(tampered)
    with pytest.raises(TxlogError) as info:
        log.write_checksum(0)
    assert info.value.error_class == "LOG_FILE_EXISTS"
    assert crc_file(table, 0).read_bytes() == tampered


def test_tampered_checksum_reports_mismatches(
        spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = copy_table(fixtures / WITH_CRC, tmp_path / "t")
    content = json.loads(crc_file(table, 2).read_text())
    content["numFiles"] = 5
    crc_file(table, 2).write_text(json.dumps(content))
    rows = DeltaLog.for_table(spark, table).validate_checksum(2).collect()
    assert [(r.version, r.field, r.expected, r.actual) for r in rows] == [
        (2, "numFiles", "5", "2")]


def test_missing_and_malformed(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    table = without_checksums(fixtures, tmp_path, WITH_CRC)
    log = DeltaLog.for_table(spark, table)
    with pytest.raises(ChecksumNotFoundError) as missing:
        log.validate_checksum(1)
    assert missing.value.error_class == "CHECKSUM_NOT_FOUND"
    crc_file(table, 1).write_text("{not json")
    with pytest.raises(CorruptLogError) as bad:
        log.validate_checksum(1)
    assert bad.value.error_class == "MALFORMED_LOG_FILE"
    assert "00000000000000000001.crc" in bad.value.message


@pytest.mark.parametrize("version, error", [
    (-1, ValueError), ("1", TypeError), (1.0, TypeError), (True, TypeError)])
def test_version_argument_checks(
        spark: SparkSession, fixtures: Path, version: object, error: type) -> None:
    log = DeltaLog.for_table(spark, fixtures / WITH_CRC)
    for method in (log.write_checksum, log.validate_checksum):
        with pytest.raises(error, match="version"):
            method(version)  # type: ignore[arg-type]
