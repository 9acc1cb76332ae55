"""Writing a DataFrame to a Delta table: :func:`txlog.write`.

>>> r = txlog.write(df, "/data/events", mode="append", partition_by=["date"])
>>> r.version, r.num_files, r.num_output_rows
(3, 8, 1000000)
"""

from __future__ import annotations

import json
import os

from pyspark.sql import DataFrame

from ._args import _df, _path_text, _str_map, _whole_number
from ._gateway import call_text, jvm_facade
from ._summaries import DeleteResult, OptimizeResult, WriteResult

__all__ = ["write", "WriteResult", "DeleteResult", "OptimizeResult"]

_MODES = ("append", "overwrite", "error", "ignore")








def write(
    df: DataFrame,
    path: str | os.PathLike[str],
    mode: str = "append",
    partition_by: list[str] | None = None,
    properties: dict[str, str] | None = None,
    replace_where: str | None = None,
    txn_app_id: str | None = None,
    txn_version: int | None = None,
    merge_schema: bool = False,
    overwrite_schema: bool = False,
) -> WriteResult:
    """Writes ``df``'s rows to the Delta table at ``path`` as one commit, with per-file
    statistics; a table that does not exist is created with ``df``'s schema.

    ``mode``: ``"append"`` adds the rows, ``"overwrite"`` replaces the table's files,
    ``"error"`` raises :class:`txlog.errors.TableExistsError` and ``"ignore"`` does nothing when
    the table exists. ``partition_by`` and ``properties`` apply to a new table (for an existing
    one, ``partition_by`` must be its own). ``replace_where`` (mode ``"overwrite"``): a
    predicate on partition columns; only the files it selects are replaced, and every row
    written must satisfy it. ``txn_app_id`` and ``txn_version`` together make
    the write idempotent: it is skipped when the table holds that application's version or a
    later one. ``merge_schema``: columns of ``df`` the table lacks (nested struct fields too)
    are added to the table's schema, nullable, at the end, in the commit of the data; a column
    of another type is still refused (no type widening). ``overwrite_schema`` (mode
    ``"overwrite"`` only, not with ``replace_where``): the table's schema becomes ``df``'s, types
    may change, and its partition columns become ``partition_by`` (none when not given); every
    file is removed. Both as delta-spark's ``mergeSchema`` / ``overwriteSchema`` write options.
    Raises :class:`txlog.errors.SchemaMismatchError` (columns the table lacks without
    ``merge_schema``, or of another type), :class:`txlog.errors.InvalidArgumentError`
    (``overwrite_schema`` with another mode or with ``replace_where``),
    :class:`txlog.errors.ConstraintViolationError` (a row breaking a NOT NULL
    column, a CHECK constraint, an invariant, a generated column or ``replace_where``),
    :class:`txlog.errors.IdentityColumnError` (values given for a ``GENERATED ALWAYS AS
    IDENTITY`` column; left out, they are generated), :class:`txlog.errors.UnsupportedFeatureError`
    (a writer feature txlog does not follow); nothing is committed then.

    >>> txlog.write(spark.range(10), "/data/t", mode="overwrite").num_output_rows
    10
    >>> txlog.write(df_with_new_column, "/data/t", merge_schema=True).committed
    True
    """
    jdf = _df("df", df)
    text = _path_text(path)
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a str, got {type(mode).__name__}")
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(_MODES)}, got {mode!r}")
    options: dict[str, str] = {"mode": mode}
    if partition_by is not None:
        if not isinstance(partition_by, (list, tuple)) or not all(
            isinstance(c, str) for c in partition_by
        ):
            raise TypeError("partition_by must be a list of column names")
        options["partitionBy"] = json.dumps(list(partition_by))
    if replace_where is not None:
        if not isinstance(replace_where, str):
            raise TypeError(f"replace_where must be a str, got {type(replace_where).__name__}")
        if mode != "overwrite":
            raise ValueError("replace_where applies to mode 'overwrite'")
        options["replaceWhere"] = replace_where
    if (txn_app_id is None) != (txn_version is None):
        raise ValueError("txn_app_id and txn_version are given together or not at all")
    if txn_app_id is not None:
        if not isinstance(txn_app_id, str) or not txn_app_id:
            raise TypeError("txn_app_id must be a non-empty str")
        options["txnAppId"] = txn_app_id
        options["txnVersion"] = _whole_number("txn_version", txn_version)
    for name, flag in (("merge_schema", merge_schema), ("overwrite_schema", overwrite_schema)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, got {type(flag).__name__}")
    options["mergeSchema"] = "true" if merge_schema else "false"
    options["overwriteSchema"] = "true" if overwrite_schema else "false"
    facade = jvm_facade(df.sparkSession)
    summary = call_text(facade.write, jdf, text, options, _str_map("properties", properties))
    return WriteResult._of(summary)
