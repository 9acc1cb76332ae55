"""Checks and conversions of the arguments the Python API hands to the JVM: each raises
TypeError or ValueError naming the bad argument, before anything is asked of Spark."""

from __future__ import annotations

import json
import operator
import os
from datetime import date, datetime, timezone
from typing import Any


def _path_text(path: str | os.PathLike[str]) -> str:
    if isinstance(path, (str, os.PathLike)):
        text = os.fspath(path)
        if isinstance(text, str):
            if not text.strip():
                raise ValueError("path must be a non-empty table path")
            return text
    raise TypeError(f"path must be a str or os.PathLike[str], got {type(path).__name__}")


def _whole_number(name: str, value: Any) -> str:
    """``value`` as the text of a non-negative int; TypeError/ValueError naming ``name``."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__}") from None
    if v < 0:
        raise ValueError(f"{name} must be a non-negative int, got {v}")
    return str(v)


def _version_text(version: Any) -> str:
    return _whole_number("version", version)


def _timestamp_text(timestamp: Any) -> str:
    """Text the JVM parses (see ``txlog.DeltaLog.snapshotAsOf(String)``).

    Naive datetimes are sent as ``yyyy-MM-dd HH:mm:ss.ffffff``, which is read in the Spark
    session time zone (``spark.sql.session.timeZone``), like a string; aware datetimes are
    converted to UTC and sent as ISO-8601 ``...Z``; dates mean midnight in the session time
    zone; strings are passed through unchanged.
    """
    if isinstance(timestamp, datetime):
        if timestamp.tzinfo is not None and timestamp.utcoffset() is not None:
            u = timestamp.astimezone(timezone.utc)
            return (f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:"
                    f"{u.second:02d}.{u.microsecond:06d}Z")
        t = timestamp
        return (f"{t.year:04d}-{t.month:02d}-{t.day:02d} {t.hour:02d}:{t.minute:02d}:"
                f"{t.second:02d}.{t.microsecond:06d}")
    if isinstance(timestamp, date):
        return f"{timestamp.year:04d}-{timestamp.month:02d}-{timestamp.day:02d}"
    if isinstance(timestamp, str):
        if not timestamp.strip():
            raise ValueError("timestamp must be a non-empty timestamp string")
        return timestamp
    raise TypeError(
        f"timestamp must be a str, datetime or date, got {type(timestamp).__name__}"
    )


def _text(name: str, value: Any) -> str:
    """``value`` if it is a non-blank str; TypeError naming ``name`` otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{name} must be a non-empty str, got {type(value).__name__}")
    return value


def _str_map(name: str, value: dict[str, Any] | None) -> dict[str, str]:
    """A dict with str keys as str -> str (other values as JSON text); {} for None."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict, got {type(value).__name__}")
    out = {}
    for k, v in value.items():
        if not isinstance(k, str):
            raise TypeError(f"{name} keys must be str, got {type(k).__name__}")
        out[k] = v if isinstance(v, str) else json.dumps(v)
    return out


def _df(name: str, df: Any) -> Any:
    """The JVM handle of a classic pyspark DataFrame, or a Spark Connect DataFrame itself (the
    transport sends its plan); TypeError naming ``name`` otherwise."""
    from pyspark.sql import DataFrame

    from ._gateway import is_connect

    if is_connect(df) and hasattr(df, "_plan"):
        return df
    if not isinstance(df, DataFrame):
        raise TypeError(f"{name} must be a pyspark DataFrame, got {type(df).__name__}")
    return df._jdf


def _entries(name: str, entries: list) -> str:
    """A list of dicts (file actions, the spec's field names) as one JSON array; TypeError
    naming ``name`` for anything else. The JVM checks the fields."""
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise TypeError(f"{name}[{i}] must be a dict, got {type(e).__name__}")
    try:
        return json.dumps(entries, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name} must hold only JSON values (str, int, bool, dict, None): {e}")


def _schema_text(name: str, schema: Any) -> str:
    """A StructType as its JSON, or a non-blank DDL str; TypeError naming ``name`` otherwise."""
    from pyspark.sql.types import StructType

    if isinstance(schema, StructType):
        return schema.json()
    if isinstance(schema, str) and schema.strip():
        return schema
    raise TypeError(f"{name} must be a StructType or a DDL str, got {type(schema).__name__}")
