"""Checks and conversions of the arguments the Python API hands to the JVM: each raises
TypeError or ValueError naming the bad argument, before anything is asked of Spark."""

from __future__ import annotations

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
