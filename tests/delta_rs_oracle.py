"""delta-rs as an oracle: a snapshot of txlog compared with what delta-rs reads of the same
version (version, protocol, metadata id and partition columns, live files with typed partition
values), with paths and values normalized the same way for both."""

from __future__ import annotations

import json
import math
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.types import TimestampType

from oracle_recording import DeltaRsAnswer
from txlog import DeltaLog, Snapshot
from txlog.errors import TxlogError

def normalize_path(raw: str, table_root: Path) -> str:
    """A file path as the log's URI-encoded path decoded, relative to the table when inside."""
    parsed = urlparse(raw)
    if parsed.scheme and len(parsed.scheme) > 1:  # absolute URI (not a Windows drive)
        if parsed.scheme != "file":
            return unquote(raw)
        local = Path(unquote(parsed.path))
        try:
            return str(local.relative_to(table_root))
        except ValueError:
            return str(local)
    return unquote(raw)


def canonical(value: Any, spark_local_timestamp: bool = False) -> str | None:
    """One text per partition value, the same for equal values of either library."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else repr(value)
    if isinstance(value, Decimal):
        return "0" if value == 0 else format(value.normalize(), "f")
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return value.astimezone(timezone.utc).isoformat()
        if spark_local_timestamp:
            # PySpark returns TimestampType values as naive datetimes in local time.
            return value.astimezone(timezone.utc).isoformat()
        return value.isoformat()  # timestamp_ntz
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    return str(value)


def features(f: Any) -> frozenset[str] | None:
    return None if f is None else frozenset(f)


def pv_text(values: dict[str, str | None]) -> str:
    return json.dumps(values, sort_keys=True)


def txlog_file_rows(snap: Snapshot, root: Path) -> list[tuple[str, int, str]]:
    """txlog's live files as (normalized path, size, partition values as JSON text)."""
    df = snap.all_files()
    pv_type = df.schema["partitionValues_parsed"].dataType
    ltz = {f.name for f in pv_type.fields if isinstance(f.dataType, TimestampType)}
    rows = []
    for r in df.select("path", "size", "partitionValues_parsed").collect():
        pv = r.partitionValues_parsed.asDict() if r.partitionValues_parsed is not None else {}
        rows.append((normalize_path(r.path, root), int(r.size),
                     pv_text({k: canonical(v, k in ltz) for k, v in pv.items()})))
    return rows


def delta_rs_file_rows(dt: Any, root: Path) -> list[tuple[str, int, str]]:
    """delta-rs's live files of ``dt``, as :func:`txlog_file_rows` gives txlog's."""
    import pyarrow as pa

    table = pa.table(dt.get_add_actions(flatten=True))
    prefix = "partition."
    pcols = [c for c in table.column_names if c.startswith(prefix)]
    rows = []
    for r in table.select(["path", "size_bytes", *pcols]).to_pylist():
        rows.append((normalize_path(r["path"], root), int(r["size_bytes"]),
                     pv_text({c[len(prefix):]: canonical(r[c]) for c in pcols})))
    return rows


#: Reader features that put variant columns in a schema.
VARIANT_FEATURES = frozenset({"variantType", "variantType-preview", "variantShredding-preview"})


def refused_on_this_spark(dt: Any) -> bool:
    """Whether txlog must refuse the delta-rs table ``dt`` (a DeltaTable, or a DeltaRsAnswer) on
    the running Spark: Spark 3.5 has no variant type, so there a table with variant columns cannot
    be represented."""
    import pyspark

    if isinstance(dt, DeltaRsAnswer):
        reader = dt.reader_features
    else:
        reader = dt.protocol().reader_features
    return int(pyspark.__version__.split(".")[0]) < 4 and bool(
        VARIANT_FEATURES & set(reader or []))


# Why delta-rs refused a table, by error type, or by message where delta-rs raises a plain
# DeltaError (as literals; txlog's categories are in test_delta_rs_agreement).
DELTA_RS_MESSAGES = [
    ("Expected contiguous commit files", "missing-log"),
    ("No table metadata found", "corrupt"),
    ("No protocol found", "corrupt"),
    ("unmasked nulls", "corrupt"),
    ("Invalid protocol action", "unsupported"),
    ("Unsupported", "unsupported"),
    ("catalog-managed", "unsupported"),
]


def delta_rs_category(e: BaseException) -> str:
    from deltalake.exceptions import TableNotFoundError

    if isinstance(e, TableNotFoundError):
        return "not-a-table"
    text = str(e)
    for needle, category in DELTA_RS_MESSAGES:
        if needle in text:
            return category
    return f"unmapped: {type(e).__name__}: {text.splitlines()[0][:160] if text else ''}"


def compare_version(spark: SparkSession, log: DeltaLog, root: Path, dt: Any,
                    version: int | None) -> None:
    """txlog's snapshot at ``version`` (the latest when None) against delta-rs's answer ``dt``:
    a loaded ``deltalake.DeltaTable`` or a recorded :class:`DeltaRsAnswer`."""
    rs = dt if isinstance(dt, DeltaRsAnswer) else DeltaRsAnswer.of(dt, root)
    where = "latest" if version is None else f"version {version}"
    try:
        snap = log.snapshot(version=version)
    except TxlogError as e:
        if refused_on_this_spark(rs):
            assert e.error_class == "UNSUPPORTED_READER_FEATURES", e
            return
        pytest.fail(f"txlog refuses {where} that delta-rs loads: {type(e).__name__}: {e}")
    assert not refused_on_this_spark(rs), f"{where}: read a table this Spark cannot represent"
    assert snap.version == rs.version, where

    p = snap.protocol
    assert (p.min_reader_version, p.min_writer_version) == (
        rs.min_reader_version, rs.min_writer_version), where
    if p.reader_features or rs.reader_features:
        assert p.reader_features == features(rs.reader_features), where
    if p.writer_features or rs.writer_features:
        assert p.writer_features == features(rs.writer_features), where

    md = snap.metadata
    assert md.id == rs.metadata_id, where
    assert tuple(md.partition_columns) == rs.partition_columns, where

    # As multisets: the same files, each as often (a duplicate is a disagreement).
    expected = sorted(rs.files)
    assert sorted(txlog_file_rows(snap, root)) == expected, where
    if version is None:
        sizes = [size for _, size, _ in expected]
        assert (snap.num_files, snap.size_in_bytes) == (len(sizes), sum(sizes)), where
