"""Writing a classic (V1) checkpoint parquet file with pyarrow.

Columns follow the spec's "Checkpoint Schema": one top-level struct column per action
(txn, add, remove, metaData, protocol), each row carrying exactly one non-null action.
Stats are a JSON string (writeStatsAsJson, the default); `PARSED_SCHEMA` adds, as delta-spark
does by default (writeStatsAsStruct), the typed `partitionValues_parsed` and `stats_parsed`
structs at the end of `add` (stats_columns.py's types).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import stats_columns
from synth import PARTITION_VALUES_TYPE

STRING_MAP = pa.map_(pa.string(), pa.string())

TXN = pa.struct([("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())])
ADD = pa.struct(
    [
        ("path", pa.string()),
        ("partitionValues", PARTITION_VALUES_TYPE),
        ("size", pa.int64()),
        ("modificationTime", pa.int64()),
        ("dataChange", pa.bool_()),
        ("stats", pa.string()),
        ("tags", STRING_MAP),
        ("baseRowId", pa.int64()),
        ("defaultRowCommitVersion", pa.int64()),
    ]
)
REMOVE = pa.struct(
    [
        ("path", pa.string()),
        ("deletionTimestamp", pa.int64()),
        ("dataChange", pa.bool_()),
        ("extendedFileMetadata", pa.bool_()),
        ("partitionValues", STRING_MAP),
        ("size", pa.int64()),
    ]
)
METADATA = pa.struct(
    [
        ("id", pa.string()),
        ("name", pa.string()),
        ("description", pa.string()),
        ("format", pa.struct([("provider", pa.string()), ("options", STRING_MAP)])),
        ("schemaString", pa.string()),
        ("partitionColumns", pa.list_(pa.string())),
        ("configuration", STRING_MAP),
        ("createdTime", pa.int64()),
    ]
)
PROTOCOL = pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32())])
ADD_PARSED = pa.struct(
    [
        *ADD,
        ("partitionValues_parsed", stats_columns.PARTITION_PARSED_TYPE),
        ("stats_parsed", stats_columns.STATS_PARSED_TYPE),
    ]
)


def _schema(add: pa.StructType) -> pa.Schema:
    return pa.schema(
        [("txn", TXN), ("add", add), ("remove", REMOVE), ("metaData", METADATA),
         ("protocol", PROTOCOL)]
    )  # fmt: skip


SCHEMA = _schema(ADD)
PARSED_SCHEMA = _schema(ADD_PARSED)


def _batch(schema: pa.Schema, n: int, **columns: pa.Array) -> pa.RecordBatch:
    arrays = [columns.get(f.name, pa.nulls(n, f.type)) for f in schema]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def table_state_batch(protocol: dict, metadata: dict, schema: pa.Schema = SCHEMA) -> pa.RecordBatch:
    """The two non-file rows: protocol then metaData."""
    return _batch(
        schema,
        2,
        protocol=pa.array([protocol, None], PROTOCOL),
        metaData=pa.array([None, metadata], METADATA),
    )


def add_batch(columns: dict[str, pa.Array], schema: pa.Schema = SCHEMA) -> pa.RecordBatch:
    """Rows of add actions from synth.file_columns' columns (those the schema's add has)."""
    n = len(columns["path"])
    add = schema.field("add").type
    fields = [columns.get(f.name, pa.nulls(n, f.type)) for f in add]
    return _batch(schema, n, add=pa.StructArray.from_arrays(fields, fields=list(add)))


def write(path: Path, batches: Iterable[pa.RecordBatch], schema: pa.Schema = SCHEMA) -> int:
    """Writes the batches, one row group each, and returns the number of rows."""
    rows = 0
    with pq.ParquetWriter(path, schema, compression="snappy") as writer:
        for batch in batches:
            writer.write_batch(batch, row_group_size=len(batch))
            rows += len(batch)
    return rows
