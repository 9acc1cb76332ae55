"""A DataFrame whose rows the driver holds (a small table's file list, built there without a
Spark job): its ``collect()`` reads them in one facade call, pickled in the JVM as PySpark's own
``collect()`` pickles them (``txlog.python.LocalRows``), instead of starting a SQL execution and
serving them over a socket. ``toPandas()`` collects through it when Arrow is off
(``spark.sql.execution.arrow.pyspark.enabled``; with Arrow it collects Arrow batches, as ever).
When the JVM does not hold the rows, or they are past its size limit, ``collect()`` is
PySpark's.

>>> snap.all_files().collect()       # one call: the rows the driver holds
"""

from __future__ import annotations

import base64
import functools
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from ._gateway import call_text, frame, is_connect

__all__ = ["local_rows_frame"]


@functools.cache
def _frame_class() -> type:
    """The classic DataFrame class with ``collect()`` served from the driver's rows (built on
    first use: a Spark Connect only install has no classic DataFrame)."""
    try:
        from pyspark.sql.classic.dataframe import DataFrame as Classic  # PySpark 4
    except ImportError:
        from pyspark.sql.dataframe import DataFrame as Classic  # PySpark 3.5
    from pyspark.serializers import CPickleSerializer

    class LocalRowsFrame(Classic):  # type: ignore[misc, valid-type]
        """A DataFrame over rows the driver holds; see :mod:`txlog._local_rows`."""

        def __init__(self, jdf: Any, spark: SparkSession, facade: Any) -> None:
            super().__init__(jdf, spark)
            self._txlog_facade = facade

        def collect(self) -> list:  # type: ignore[override]
            text = call_text(self._txlog_facade.localRows, self._jdf)
            if text is None:
                return super().collect()
            return list(CPickleSerializer().loads(base64.b64decode(text)))

        collect.__doc__ = Classic.collect.__doc__

    return LocalRowsFrame


def local_rows_frame(result: Any, spark: SparkSession, facade: Any) -> DataFrame:
    """The DataFrame a facade call returned (see :func:`txlog._gateway.frame`), collected from
    the driver's rows when it holds them; a Spark Connect DataFrame as it is."""
    if is_connect(result):
        return frame(result, spark)
    return _frame_class()(result, spark, facade)  # type: ignore[no-any-return]
