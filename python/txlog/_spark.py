"""Adding the txlog jar to a Spark session before it starts.

>>> from pyspark.sql import SparkSession
>>> import txlog
>>> spark = txlog.configure_spark(SparkSession.builder.master("local[2]")).getOrCreate()
"""

from __future__ import annotations

from typing import TypeVar

from pyspark import SparkConf
from pyspark.sql import SparkSession

from ._jar import find_jar

__all__ = ["configure_spark"]

B = TypeVar("B", SparkSession.Builder, SparkConf)

_JARS = "spark.jars"


def _with_jar(existing: str | None, jar: str) -> str:
    jars = [j.strip() for j in (existing or "").split(",") if j.strip()]
    if jar not in jars:
        jars.append(jar)
    return ",".join(jars)


def configure_spark(builder: B) -> B:
    """Appends the txlog jar to ``spark.jars`` of a ``SparkSession.Builder`` (or a
    ``SparkConf``), keeping the jars already listed there, and returns it.

    The jar is found and its version checked first (see :func:`txlog._jar.find_jar`); nothing
    is written into pyspark's installation. ``spark.jars`` only takes effect when the Spark
    JVM starts, so configure the builder before the first session is created.

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
            existing = builder._options.get(_JARS)
            builder.config(_JARS, _with_jar(None if existing is None else str(existing), jar))
    else:
        builder.set(_JARS, _with_jar(builder.get(_JARS), jar))
    return builder
