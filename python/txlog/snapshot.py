"""A snapshot of a Delta table at one version.

>>> snap = txlog.DeltaLog.for_table(spark, "/data/events").snapshot()
>>> snap.version, snap.protocol.min_reader_version, snap.metadata.partition_columns
(3, 1, ('date',))
>>> snap.all_files().select("path", "size").show()
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType

from ._gateway import call, call_text, frame
from ._local_rows import local_rows_frame

__all__ = ["Snapshot", "Protocol", "Metadata"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _millis_to_datetime(ms: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=ms)


@dataclass(frozen=True)
class Protocol:
    """The table's protocol action. Features are None for legacy protocols (reader version
    below 3 / writer version below 7).

    >>> snap.protocol
    Protocol(min_reader_version=1, min_writer_version=2, reader_features=None, writer_features=None)
    """

    min_reader_version: int
    min_writer_version: int
    reader_features: frozenset[str] | None = None
    writer_features: frozenset[str] | None = None


@dataclass(frozen=True)
class Metadata:
    """The table's metaData action. ``created_time`` is in milliseconds since the epoch;
    ``partition_columns`` is a tuple; ``format_options`` and ``configuration`` are dicts (left
    out of the hash).

    >>> snap.metadata.schema.fieldNames()
    ['id', 'date']
    """

    id: str
    name: str | None
    description: str | None
    format_provider: str
    format_options: dict[str, str] = field(hash=False)
    schema_string: str | None
    partition_columns: tuple[str, ...]
    configuration: dict[str, str] = field(hash=False)
    created_time: int | None

    @property
    def schema(self) -> StructType:
        """The table schema as a Spark ``StructType`` (empty when the log has no schemaString)."""
        if self.schema_string is None:
            return StructType([])
        return StructType.fromJson(json.loads(self.schema_string))


class Snapshot:
    """The state of a table at one version. Obtain it from :class:`txlog.DeltaLog`.

    Driver-side information (version, protocol, metadata, ...) is fetched from the JVM once,
    on first use; file lists are Spark DataFrames computed by Spark when needed.
    """

    def __init__(self, jsnapshot: Any, spark: SparkSession, facade: Any) -> None:
        self._jsnapshot: Any = jsnapshot
        self._spark: SparkSession = spark
        self._facade: Any = facade
        self._lock = threading.Lock()
        self._described: dict[str, Any] | None = None
        self._counts: dict[str, int] | None = None

    def _describe(self) -> dict[str, Any]:
        with self._lock:
            if self._described is None:
                self._described = json.loads(call_text(self._facade.describe, self._jsnapshot))
                counts = self._described.get("fileCounts")
                if counts is not None and self._counts is None:  # counted without a job
                    self._counts = {k: int(counts[k]) for k in
                                    ("numFiles", "sizeInBytes", "numTombstones")}
            return self._described

    def _file_counts(self) -> dict[str, int]:
        self._describe()  # a small table's summary carries the counts: no second call
        with self._lock:
            if self._counts is None:
                counts = json.loads(call(self._facade.fileCounts, self._jsnapshot))
                self._counts = {k: int(counts[k]) for k in
                                ("numFiles", "sizeInBytes", "numTombstones")}
            return self._counts

    @property
    def table_path(self) -> str:
        """The table's qualified root path, e.g. ``file:/data/events``."""
        return str(self._describe()["tablePath"])

    @property
    def version(self) -> int:
        """The table version of this snapshot."""
        return int(self._describe()["version"])

    @property
    def timestamp(self) -> datetime:
        """The commit timestamp of this version, as a timezone-aware UTC datetime."""
        return _millis_to_datetime(int(self._describe()["timestamp"]))

    @property
    def checkpoint_version(self) -> int | None:
        """The version of the checkpoint the state was replayed from, if any."""
        v = self._describe()["checkpointVersion"]
        return None if v is None else int(v)

    @property
    def protocol(self) -> Protocol:
        """The protocol in force."""
        p = self._describe()["protocol"]
        rf, wf = p.get("readerFeatures"), p.get("writerFeatures")
        return Protocol(
            min_reader_version=int(p["minReaderVersion"]),
            min_writer_version=int(p["minWriterVersion"]),
            reader_features=None if rf is None else frozenset(rf),
            writer_features=None if wf is None else frozenset(wf),
        )

    @property
    def metadata(self) -> Metadata:
        """The metadata in force."""
        m = self._describe()["metadata"]
        fmt = m.get("format") or {}
        created = m.get("createdTime")
        return Metadata(
            id=m["id"],
            name=m.get("name"),
            description=m.get("description"),
            format_provider=str(fmt.get("provider")),
            format_options=dict(fmt.get("options") or {}),
            schema_string=m.get("schemaString"),
            partition_columns=tuple(m.get("partitionColumns") or ()),
            configuration=dict(m.get("configuration") or {}),
            created_time=None if created is None else int(created),
        )

    @property
    def schema(self) -> StructType:
        """Shorthand for ``metadata.schema``."""
        return self.metadata.schema

    @property
    def table_properties(self) -> dict[str, str]:
        """Table properties, with txlog's defaults for those not set."""
        return dict(self._describe()["tableProperties"])

    @property
    def set_transactions(self) -> dict[str, int]:
        """The latest transaction version per application id."""
        return {k: int(v) for k, v in self._describe()["setTransactions"].items()}

    @property
    def domain_metadata(self) -> dict[str, str]:
        """Domain metadata in force: configuration by domain."""
        return dict(self._describe()["domainMetadata"])

    @property
    def num_files(self) -> int:
        """The number of live files (counted with the other counts: on the driver for a small
        table, else by one Spark job)."""
        return self._file_counts()["numFiles"]

    @property
    def size_in_bytes(self) -> int:
        """The total size of the live files in bytes."""
        return self._file_counts()["sizeInBytes"]

    @property
    def num_tombstones(self) -> int:
        """The number of unexpired tombstones."""
        return self._file_counts()["numTombstones"]

    def all_files(self) -> DataFrame:
        """The live files: one add action per row with every field, plus
        ``partitionValues_parsed`` (typed) and ``stats_parsed`` (stats as a struct).

        A small table's list (up to 10,000 files, its log read on the driver) is built on the
        driver: collecting it runs no Spark job, and ``collect()`` (``toPandas()`` too, with
        Arrow off) reads its rows in one call, without a SQL execution, when they pickle to at
        most 1 MiB.

        >>> [f.path for f in snap.all_files().collect()]
        """
        return local_rows_frame(call(self._facade.allFiles, self._jsnapshot), self._spark,
                                self._facade)

    def to_df(self) -> DataFrame:
        """The table's rows at this snapshot's version, as a DataFrame with the table's logical
        schema (see :meth:`txlog.DeltaLog.read`).

        >>> log.snapshot(version=3).to_df().where("amount > 100").count()
        """
        return frame(call(self._facade.toDF, self._jsnapshot), self._spark)

    def tombstones(self) -> DataFrame:
        """Unexpired remove actions (files VACUUM must keep)."""
        return frame(call(self._facade.tombstones, self._jsnapshot), self._spark)

    def cache(self) -> Snapshot:
        """Keeps the snapshot's file state in memory (spilling to disk) and returns self;
        :meth:`txlog.DeltaLog.update` then builds on it instead of replaying again."""
        call(self._facade.cache, self._jsnapshot)
        with self._lock:
            self._counts = None
        return self

    def unpersist(self) -> None:
        """Releases what :meth:`cache` kept."""
        call(self._facade.unpersist, self._jsnapshot)

    def __repr__(self) -> str:
        d = self._described
        if d is None:
            return str(call(self._jsnapshot.toString))
        return f"Snapshot(table_path={d['tablePath']!r}, version={d['version']})"
