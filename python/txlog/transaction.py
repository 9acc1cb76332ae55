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
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql.types import StructType

from ._args import _df, _entries, _schema_text, _str_map, _text, _whole_number
from ._gateway import call, frame, is_connect
from ._summaries import CommitResult

__all__ = ["Transaction", "CommitResult"]




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
        return int(call(self._facade.readVersion, self._jtxn))

    def read_files(self, predicate: str | Column | None = None) -> DataFrame:
        """The read snapshot's files (columns of ``Snapshot.all_files``) matching ``predicate``
        (a SQL string or Column; None: every file, which counts as reading the whole table).

        >>> txn.read_files("partitionValues_parsed.d = '2024-01-01'")
        """
        connect = is_connect(self._spark)
        if predicate is None:
            jcol = None
        elif isinstance(predicate, str):
            if connect:
                from ._connect import Sql

                jcol = Sql(predicate)
            else:
                from pyspark.sql.functions import expr

                jcol = expr(predicate)._jc
        elif connect and is_connect(predicate):
            jcol = predicate
        elif isinstance(predicate, Column) and not connect:
            jcol = predicate._jc
        else:
            raise TypeError(f"predicate must be a str or Column, got {type(predicate).__name__}")
        return frame(call(self._facade.readFiles, self._jtxn, jcol), self._spark)

    def read_whole_table(self) -> Transaction:
        """Records that the transaction depends on every file.

        >>> txn.read_whole_table()
        """
        call(self._facade.readWholeTable, self._jtxn)
        return self

    def txn_version(self, app_id: str) -> int | None:
        """The version of ``app_id``'s latest transaction in the read snapshot (None if none);
        the app id is recorded as read. Example: ``txn.txn_version("stream-1")``."""
        v = int(call(self._facade.txnVersion, self._jtxn, _text("app_id", app_id)))
        return None if v < 0 else v

    def add_files(self, df: DataFrame | list[dict[str, Any]]) -> Transaction:
        """Stages add actions, one per row, in the shape of ``Snapshot.all_files`` (``path``,
        ``size``, ``partitionValues``, ``modificationTime``, ``dataChange`` required). A list
        of dicts with the spec's field names is staged without a Spark job (the fast way to
        commit a few files); a field an add does not have, or a value of the wrong JSON type,
        is ``INVALID_COMMIT_ACTIONS`` naming the entry.

        >>> txn.add_files(new_files)
        >>> txn.add_files([{"path": "d=1/a.parquet", "size": 1024, "partitionValues":
        ...     {"d": "1"}, "modificationTime": 1700000000000, "dataChange": True}])
        """
        if isinstance(df, list):
            call(self._facade.addFileEntries, self._jtxn, _entries("df", df))
        else:
            call(self._facade.addFiles, self._jtxn, _df("df", df))
        return self

    def remove_files(self, df: DataFrame | list[dict[str, Any]]) -> Transaction:
        """Stages remove actions (``path`` and ``dataChange`` required; ``deletionTimestamp``
        defaults to the commit time), as a DataFrame or, as :meth:`add_files` takes them, a
        list of dicts. Each must name a file live in the snapshot read: without a
        ``deletionVector`` it takes the live file's; a path that is not live, or another
        deletion vector, fails the commit (``INVALID_COMMIT_ACTIONS``) before anything is
        written. Example: ``txn.remove_files(txn.read_files("..."))``."""
        if isinstance(df, list):
            call(self._facade.removeFileEntries, self._jtxn, _entries("df", df))
        else:
            call(self._facade.removeFiles, self._jtxn, _df("df", df))
        return self

    def add_cdc_files(self, df: DataFrame) -> Transaction:
        """Stages cdc actions (change data files). Example: ``txn.add_cdc_files(changes)``."""
        call(self._facade.addCdcFiles, self._jtxn, _df("df", df))
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
            options["schema"] = _schema_text("schema", schema)
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
        call(self._facade.setDomain, self._jtxn, _text("domain", domain), configuration)
        return self

    def remove_domain(self, domain: str) -> Transaction:
        """Stages the removal of a domain. Example: ``txn.remove_domain("myapp")``."""
        call(self._facade.removeDomain, self._jtxn, _text("domain", domain))
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
        self.result = CommitResult._of(call(
            self._facade.commit, self._jtxn, _text("operation", operation),
            _str_map("operation_parameters", operation_parameters),
        ))  # fmt: skip
        return self.result.version if self.result.committed else None
