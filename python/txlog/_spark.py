"""Adding the txlog jar and its SQL extension to a Spark session before it starts.

>>> from pyspark.sql import SparkSession
>>> import txlog
>>> spark = txlog.configure_spark(SparkSession.builder.master("local[2]")).getOrCreate()
"""

from __future__ import annotations

from typing import TypeVar

from pyspark import SparkConf
from pyspark.sql import SparkSession

from ._jar import find_jar

__all__ = ["configure_spark", "spark_settings"]

B = TypeVar("B", SparkSession.Builder, SparkConf)

_JARS = "spark.jars"
_EXTENSIONS = "spark.sql.extensions"
_EXTENSION = "txlog.sql.TxlogSparkSessionExtensions"


def _with_jar(existing: str | None, jar: str) -> str:
    jars = [j.strip() for j in (existing or "").split(",") if j.strip()]
    if jar not in jars:
        jars.append(jar)
    return ",".join(jars)


def spark_settings(jars: str | None = None, extensions: str | None = None) -> dict[str, str]:
    """The static settings txlog needs, for ``--conf`` or a cluster's configuration: the jar
    appended to ``spark.jars`` and txlog's SQL extension appended to ``spark.sql.extensions``
    (after the ones given, e.g. delta-spark's, whose parser txlog's then wraps). Both take
    effect only when a session starts: a running session cannot take them.

    >>> s = spark_settings(extensions="io.delta.sql.DeltaSparkSessionExtension")
    >>> s["spark.sql.extensions"]
    'io.delta.sql.DeltaSparkSessionExtension,txlog.sql.TxlogSparkSessionExtensions'
    """
    return {_JARS: _with_jar(jars, find_jar()), _EXTENSIONS: _with_jar(extensions, _EXTENSION)}


def configure_spark(builder: B) -> B:
    """Appends the txlog jar to ``spark.jars`` of a ``SparkSession.Builder`` (or a
    ``SparkConf``), and txlog's SQL statements (``txlog.sql.TxlogSparkSessionExtensions``,
    docs/sql.md) to ``spark.sql.extensions``, keeping what is already listed there, and returns
    it. Set delta-spark's extension before calling it: txlog's parser then wraps delta-spark's.

    The jar is found and its version checked first (see :func:`txlog._jar.find_jar`); nothing
    is written into pyspark's installation. ``spark.jars`` only takes effect when the Spark
    JVM starts and ``spark.sql.extensions`` when a session starts, so configure the builder
    before the first session is created (for a cluster's settings: :func:`spark_settings`).

    >>> spark = configure_spark(SparkSession.builder.appName("app")).getOrCreate()
    """
    if not isinstance(builder, (SparkSession.Builder, SparkConf)):
        raise TypeError(
            "builder must be a pyspark.sql.SparkSession.Builder (e.g. SparkSession.builder) or "
            f"a pyspark.SparkConf, got {type(builder).__module__}.{type(builder).__qualname__}"
        )
    jar = find_jar()
    if isinstance(builder, SparkSession.Builder):
        with builder._lock:
            for key, value in ((_JARS, jar), (_EXTENSIONS, _EXTENSION)):
                existing = builder._options.get(key)
                builder.config(key, _with_jar(None if existing is None else str(existing), value))
    else:
        builder.set(_JARS, _with_jar(builder.get(_JARS), jar))
        builder.set(_EXTENSIONS, _with_jar(builder.get(_EXTENSIONS), _EXTENSION))
    return builder
