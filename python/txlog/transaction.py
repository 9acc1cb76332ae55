"""Transactions: commit to a Delta table with optimistic concurrency.

>>> log = txlog.create_table(spark, "/data/t", "id BIGINT, d DATE", partition_by=["d"])
>>> txn = log.start_transaction()
>>> old = txn.read_files("partitionValues_parsed.d = '2024-01-01'")
>>> txn.remove_files(old).add_files(new_files)
>>> txn.commit("OVERWRITE")
1
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql.types import StructType

from ._gateway import call, java_session, jvm_facade
from ._args import _path_text, _whole_number
from .delta_log import DeltaLog

__all__ = ["Transaction", "CommitResult", "create_table"]


@dataclass(frozen=True)
class CommitResult:
    """What :meth:`Transaction.commit` did: the version, whether it committed (False when skipped
    as idempotent: the table already held the transaction's app id at or past its version), how
    many versions were tried, the checkpoint written after it (its version, or None), the version
    checksum file written after it (its path, or None) and the post-commit steps that failed (the
    commit stands)."""

    version: int
    committed: bool
    attempts: int
    checkpoint_version: int | None
    post_commit_problems: list[str]
    checksum: str | None = None


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{name} must be a non-empty str, got {type(value).__name__}")
    return value


def _str_map(name: str, value: dict[str, Any] | None) -> dict[str, str]:
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
    if not isinstance(df, DataFrame):
        raise TypeError(f"{name} must be a pyspark DataFrame, got {type(df).__name__}")
    return df._jdf


def create_table(
    spark: SparkSession,
    path: str | os.PathLike[str],
    schema: StructType | str,
    partition_by: list[str] | None = None,
    properties: dict[str, str] | None = None,
) -> DeltaLog:
    """Creates a Delta table at ``path`` (version 0: protocol and metadata) and returns its log.

    ``schema`` is a :class:`pyspark.sql.types.StructType` or a DDL string; ``properties`` are
    table properties (``delta.*`` keys enable features, which choose the protocol). Raises
    :class:`txlog.errors.TableExistsError` when a table exists there.

    >>> log = txlog.create_table(spark, "/data/t", "id BIGINT, d DATE", partition_by=["d"],
    ...                          properties={"delta.enableChangeDataFeed": "true"})
    """
    text = _path_text(path)
    if isinstance(schema, StructType):
        schema_text = schema.json()
    elif isinstance(schema, str) and schema.strip():
        schema_text = schema
    else:
        raise TypeError(f"schema must be a StructType or a DDL str, got {type(schema).__name__}")
    parts = partition_by or []
    if not isinstance(parts, (list, tuple)) or not all(isinstance(c, str) for c in parts):
        raise TypeError("partition_by must be a list of column names")
    facade = jvm_facade(spark)
    jlog = call(
        facade.createTable, java_session(spark), text, schema_text, ",".join(parts),
        _str_map("properties", properties),
    )  # fmt: skip
    return DeltaLog(jlog, spark, facade)


class Transaction:
    """A transaction on a table, started by :meth:`txlog.DeltaLog.start_transaction`: what it
    read (recorded for conflict checks) and what it stages, committed once as a new version.
    Staging methods return the transaction, so calls chain."""

    def __init__(self, jtxn: Any, spark: SparkSession, facade: Any) -> None:
        self._jtxn: Any = jtxn
        self._spark: SparkSession = spark
        self._facade: Any = facade
        self.result: CommitResult | None = None

    @property
    def read_version(self) -> int:
        """The version the transaction read. Example: ``txn.read_version``."""
        return int(call(self._jtxn.readVersion))

    def read_files(self, predicate: str | Column | None = None) -> DataFrame:
        """The read snapshot's files (columns of ``Snapshot.all_files``) matching ``predicate``
        (a SQL string or Column; None: every file, which counts as reading the whole table).

        >>> txn.read_files("partitionValues_parsed.d = '2024-01-01'")
        """
        if predicate is None:
            jcol = None
        elif isinstance(predicate, str):
            from pyspark.sql.functions import expr

            jcol = expr(predicate)._jc
        elif isinstance(predicate, Column):
            jcol = predicate._jc
        else:
            raise TypeError(f"predicate must be a str or Column, got {type(predicate).__name__}")
        return DataFrame(call(self._facade.readFiles, self._jtxn, jcol), self._spark)

    def read_whole_table(self) -> Transaction:
        """Records that the transaction depends on every file.

        >>> txn.read_whole_table()
        """
        call(self._jtxn.readWholeTable)
        return self

    def txn_version(self, app_id: str) -> int | None:
        """The version of ``app_id``'s latest transaction in the read snapshot (None if none);
        the app id is recorded as read. Example: ``txn.txn_version("stream-1")``."""
        v = int(call(self._facade.txnVersion, self._jtxn, _text("app_id", app_id)))
        return None if v < 0 else v

    def add_files(self, df: DataFrame) -> Transaction:
        """Stages add actions, one per row, in the shape of ``Snapshot.all_files`` (``path``,
        ``size``, ``partitionValues``, ``modificationTime``, ``dataChange`` required).

        >>> txn.add_files(new_files)
        """
        call(self._jtxn.addFiles, _df("df", df))
        return self

    def remove_files(self, df: DataFrame) -> Transaction:
        """Stages remove actions (``path`` and ``dataChange`` required; ``deletionTimestamp``
        defaults to the commit time). Each must name a file live in the snapshot read: without
        a ``deletionVector`` it takes the live file's; a path that is not live, or another
        deletion vector, fails the commit (``INVALID_COMMIT_ACTIONS``) before anything is
        written. Example: ``txn.remove_files(txn.read_files("..."))``."""
        call(self._jtxn.removeFiles, _df("df", df))
        return self

    def add_cdc_files(self, df: DataFrame) -> Transaction:
        """Stages cdc actions (change data files). Example: ``txn.add_cdc_files(changes)``."""
        call(self._jtxn.addCdcFiles, _df("df", df))
        return self

    def update_metadata(
        self,
        schema: StructType | str | None = None,
        properties: dict[str, str | None] | None = None,
        description: str | None = None,
    ) -> Transaction:
        """Stages a metadata change built on the read metadata: a new schema (StructType or
        DDL), properties merged over the current ones (None removes a key), a description.

        >>> txn.update_metadata(properties={"delta.appendOnly": "true"})
        """
        options: dict[str, str] = {}
        if schema is not None:
            if isinstance(schema, StructType):
                options["schema"] = schema.json()
            elif isinstance(schema, str) and schema.strip():
                options["schema"] = schema
            else:
                raise TypeError(f"schema must be a StructType or str, got {type(schema).__name__}")
        if properties is not None:
            if not isinstance(properties, dict):
                raise TypeError(f"properties must be a dict, got {type(properties).__name__}")
            options["properties"] = json.dumps(properties)
        if description is not None:
            options["description"] = _text("description", description)
        call(self._facade.updateMetadata, self._jtxn, options)
        return self

    def upgrade_protocol(
        self,
        min_reader_version: int,
        min_writer_version: int,
        reader_features: list[str] | None = None,
        writer_features: list[str] | None = None,
    ) -> Transaction:
        """Stages a protocol (never lower than the current one).

        >>> txn.upgrade_protocol(3, 7, ["deletionVectors"], ["deletionVectors"])
        """
        options = {
            "minReaderVersion": _whole_number("min_reader_version", min_reader_version),
            "minWriterVersion": _whole_number("min_writer_version", min_writer_version),
        }
        given = (("readerFeatures", reader_features), ("writerFeatures", writer_features))
        for key, value in given:
            if value is not None:
                if not isinstance(value, (list, tuple)) or not all(
                    isinstance(f, str) for f in value
                ):
                    raise TypeError(f"{key} must be a list of feature names")
                options[key] = ",".join(value)
        call(self._facade.upgradeProtocol, self._jtxn, options)
        return self

    def set_app_transaction(self, app_id: str, version: int) -> Transaction:
        """Stages a ``txn`` action: application ``app_id`` committed ``version``. The commit is
        skipped (``commit`` returns None) when the table already holds it at or past ``version``.

        >>> txn.set_app_transaction("stream-1", 42)
        """
        call(self._facade.setAppTransaction, self._jtxn, _text("app_id", app_id),
             _whole_number("version", version))
        return self

    def set_domain(self, domain: str, configuration: str) -> Transaction:
        """Stages domain metadata. Example: ``txn.set_domain("myapp", '{"k": 1}')``."""
        if not isinstance(configuration, str):
            raise TypeError(f"configuration must be a str, got {type(configuration).__name__}")
        call(self._jtxn.setDomain, _text("domain", domain), configuration)
        return self

    def remove_domain(self, domain: str) -> Transaction:
        """Stages the removal of a domain. Example: ``txn.remove_domain("myapp")``."""
        call(self._jtxn.removeDomain, _text("domain", domain))
        return self

    def commit(
        self, operation: str = "WRITE", operation_parameters: dict[str, Any] | None = None
    ) -> int | None:
        """Commits everything staged as one new version and returns it, or None when skipped as
        idempotent; details in :attr:`result`. Conflicts with other writers raise
        :class:`txlog.errors.ConcurrentModificationError` subclasses.

        >>> txn.commit("WRITE", {"mode": "Append"})
        4
        """
        doc = json.loads(call(
            self._facade.commit, self._jtxn, _text("operation", operation),
            _str_map("operation_parameters", operation_parameters),
        ))  # fmt: skip
        self.result = CommitResult(
            int(doc["version"]), bool(doc["committed"]), int(doc["attempts"]),
            doc["checkpointVersion"], list(doc["postCommitProblems"]), doc.get("checksum"),
        )  # fmt: skip
        return self.result.version if self.result.committed else None
