"""Deterministic synthetic data-file attributes and Delta actions.

Every attribute of a synthetic file is a pure function of (seed, file index), so any
subset of files (a checkpoint batch, the files a commit removes) can be regenerated
without keeping state. Columns are built vectorised with numpy and pyarrow.

Stats come in three kinds (`file_columns`' `stats`): "ten", the realistic default (stats of
ten data columns, stats_columns.py), "none" (files without stats: the stat-less variants) and
"legacy" (the two-column stats of the earlier generator, kept for W14's table).
"""

from __future__ import annotations

import json
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import stats_columns

BASE_MS = 1_704_067_200_000  # 2024-01-01T00:00:00Z
PARTITION_COLUMNS = ["date", "part"]
STATS_KINDS = ("ten", "none", "legacy")
#: The fields a commit's add action carries (the other columns are the checkpoint's only).
COMMIT_FIELDS = ("path", "partitionValues", "size", "modificationTime", "dataChange", "stats")


def _schema(fields: list[tuple[str, str]]) -> dict:
    return {
        "type": "struct",
        "fields": [{"name": n, "type": t, "nullable": True, "metadata": {}} for n, t in fields],
    }


SCHEMA = _schema(stats_columns.schema_fields())
LEGACY_SCHEMA = _schema([("id", "long"), ("value", "double"), ("date", "string"),
                         ("part", "integer")])  # fmt: skip
PARTITION_VALUES_TYPE = pa.map_(pa.string(), pa.string())

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_UUID_DIGITS = [i for i in range(36) if i not in (8, 13, 18, 23)]


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a well-spread 64-bit hash of each element."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _hashes(indices: np.ndarray, seed: int, count: int) -> list[np.ndarray]:
    h = _mix(indices.astype(np.uint64) ^ _mix(np.array([seed], dtype=np.uint64)))
    out = []
    for _ in range(count):
        h = _mix(h)
        out.append(h)
    return out


def _text(values: np.ndarray, width: int = 0) -> pa.Array:
    s = pc.cast(pa.array(values), pa.string())
    return pc.utf8_lpad(s, width=width, padding="0") if width else s


def _uuids(hi: np.ndarray, lo: np.ndarray) -> pa.Array:
    raw = np.stack([hi, lo], axis=1).astype(">u8").view(np.uint8).reshape(-1, 16)
    digits = np.empty((len(raw), 32), dtype=np.uint8)
    digits[:, 0::2] = _HEX[raw >> 4]
    digits[:, 1::2] = _HEX[raw & 15]
    chars = np.full((len(raw), 36), ord("-"), dtype=np.uint8)
    chars[:, _UUID_DIGITS] = digits
    offsets = np.arange(0, 36 * (len(raw) + 1), 36, dtype=np.int32)
    return pa.StringArray.from_buffers(len(raw), pa.py_buffer(offsets), pa.py_buffer(chars))


def _sizes(h: np.ndarray) -> np.ndarray:
    """File sizes between 1 MiB and 128 MiB."""
    return (1 << 20) + (h % np.uint64(127 << 20)).astype(np.int64)


def _join(*parts) -> pa.Array:
    return pc.binary_join_element_wise(*parts, "")


def file_columns(indices: np.ndarray, seed: int, stats: str = "ten") -> dict[str, pa.Array]:
    """Columns of the add actions for the given file indices: path, partitionValues, size,
    modificationTime, dataChange and a JSON stats string (null with stats "none"); with stats
    "ten" also the checkpoint's stats_parsed and partitionValues_parsed."""
    n = len(indices)
    h_part, h_size, h_val, h_hi, h_lo = _hashes(indices, seed, 5)
    day_index = (h_part % np.uint64(28)).astype(np.int64)
    part_index = ((h_part >> np.uint64(32)) % np.uint64(16)).astype(np.int64)
    part = _text(part_index)
    date = _join("2024-01-", _text(1 + day_index, 2))
    size = _sizes(h_size)
    records = size // 100
    extra = {}
    if stats == "ten":
        extra = stats_columns.columns(indices, h_val, records, day_index, part_index)
    elif stats == "none":
        extra = {"stats": pa.nulls(n, pa.string())}
    elif stats == "legacy":
        extra = {"stats": _legacy_stats(indices, h_val, records)}
    else:
        raise ValueError(f"stats must be one of {STATS_KINDS}, not {stats!r}")
    path = _join(
        "date=", date, "/part=", part, "/part-", _text(indices % 100_000, 5), "-",
        _uuids(h_hi, h_lo), ".c000.snappy.parquet",
    )  # fmt: skip
    keys = pa.array(PARTITION_COLUMNS).take(pa.array(np.tile([0, 1], n)))
    interleave = pa.array(np.arange(2 * n).reshape(2, n).T.ravel())  # date0, part0, date1, ...
    values = pa.concat_arrays([date, part]).take(interleave)
    partition_values = pa.MapArray.from_arrays(
        pa.array(np.arange(0, 2 * n + 1, 2, dtype=np.int32)), keys, values
    )
    return {
        "path": path,
        "partitionValues": partition_values,
        "size": pa.array(size),
        "modificationTime": pa.array(BASE_MS + indices.astype(np.int64)),
        "dataChange": pa.array(np.ones(n, dtype=bool)),
        **extra,
    }


def _legacy_stats(indices: np.ndarray, h_val: np.ndarray, records: np.ndarray) -> pa.Array:
    """The earlier generator's stats: two columns, id and value."""
    id_min = indices.astype(np.int64) * 1_000_000
    cents_min = (h_val % np.uint64(100_000)).astype(np.int64)
    cents_max = cents_min + ((h_val >> np.uint64(20)) % np.uint64(100_000)).astype(np.int64)
    nulls = (h_val >> np.uint64(40)) % np.uint64(10)

    def money(cents):
        return _join(_text(cents // 100), ".", _text(cents % 100, 2))

    return _join(
        '{"numRecords":', _text(records),
        ',"minValues":{"id":', _text(id_min), ',"value":', money(cents_min),
        '},"maxValues":{"id":', _text(id_min + records - 1), ',"value":', money(cents_max),
        '},"nullCount":{"id":0,"value":', _text(nulls), "}}",
    )  # fmt: skip


def total_size(indices: np.ndarray, seed: int) -> int:
    return int(_sizes(_hashes(indices, seed, 2)[1]).sum())


def _rows(columns: dict[str, pa.Array]) -> list[dict]:
    """One dict per file of the commit fields among `columns`, without null stats."""
    names = [k for k in COMMIT_FIELDS if k in columns]
    lists = [columns[k].to_pylist() for k in names]
    rows = [dict(zip(names, values, strict=True)) for values in zip(*lists, strict=True)]
    for row in rows:
        if "partitionValues" in row:
            row["partitionValues"] = dict(row["partitionValues"])
        if "stats" in row and row["stats"] is None:
            del row["stats"]
    return rows


def add_actions(indices: np.ndarray, seed: int, stats: str = "ten") -> list[dict]:
    return [{"add": row} for row in _rows(file_columns(indices, seed, stats))]


def remove_actions(indices: np.ndarray, seed: int, timestamp_ms: int) -> list[dict]:
    cols = file_columns(indices, seed, "none")  # removes carry no stats here
    rows = _rows({k: cols[k] for k in ("path", "partitionValues", "size")})
    return [
        {
            "remove": {
                "path": r["path"],
                "deletionTimestamp": timestamp_ms,
                "dataChange": True,
                "extendedFileMetadata": True,
                "partitionValues": r["partitionValues"],
                "size": r["size"],
            }
        }
        for r in rows
    ]


def protocol() -> dict:
    return {"minReaderVersion": 1, "minWriterVersion": 2}


def metadata(seed: int, legacy: bool = False) -> dict:
    """The table's metaData action: the ten-column schema (the legacy one for W14)."""
    return {
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"txlog-bench/{seed}")),
        "format": {"provider": "parquet", "options": {}},
        "schemaString": json.dumps(LEGACY_SCHEMA if legacy else SCHEMA, separators=(",", ":")),
        "partitionColumns": PARTITION_COLUMNS,
        "configuration": {},
        "createdTime": BASE_MS,
    }


def commit_info(timestamp_ms: int) -> dict:
    return {
        "commitInfo": {
            "timestamp": timestamp_ms,
            "operation": "WRITE",
            "operationParameters": {"mode": "Append", "partitionBy": json.dumps(PARTITION_COLUMNS)},
            "isBlindAppend": False,
            "engineInfo": "txlog-bench-synth",
        }
    }
