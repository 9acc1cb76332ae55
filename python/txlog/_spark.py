"""Adding the txlog jar, its SQL extension and its catalog to a Spark session before it starts.

>>> from pyspark.sql import SparkSession
>>> import txlog
>>> spark = txlog.configure_spark(SparkSession.builder.master("local[2]")).getOrCreate()
"""

from __future__ import annotations

import os
from typing import TypeVar

from pyspark import SparkConf
from pyspark.sql import SparkSession

from ._jar import find_jar

__all__ = ["configure_spark", "connect_server_settings", "spark_settings"]

B = TypeVar("B", SparkSession.Builder, SparkConf)

_JARS = "spark.jars"
_EXTENSIONS = "spark.sql.extensions"
_EXTENSION = "txlog.sql.TxlogSparkSessionExtensions"
_CATALOG = "txlog.sql.TxlogCatalog"
_RELATION_PLUGINS = "spark.connect.extensions.relation.classes"
_PLUGIN = "txlog.connect.TxlogConnectPlugin"
_SESSION_CATALOG = "spark_catalog"
# Catalogs that serve Delta tables themselves: txlog's cannot be the session catalog beside them.
_DELTA_CATALOGS = ("org.apache.spark.sql.delta.catalog.DeltaCatalog",)


def _catalog_key(catalog: str) -> str:
    if not isinstance(catalog, str) or not catalog or "." in catalog or catalog.strip() != catalog:
        raise ValueError(f"catalog must be a catalog name such as 'spark_catalog', got {catalog!r}")
    return f"spark.sql.catalog.{catalog}"


def _catalog_setting(catalog: str, existing: str | None) -> str | None:
    """The value for ``spark.sql.catalog.<catalog>``: txlog's catalog, or None to keep the one
    already set (another catalog the user chose); a Delta catalog there is a ValueError."""
    key = _catalog_key(catalog)
    current = (existing or "").strip()
    if current in _DELTA_CATALOGS:
        raise ValueError(
            f"catalog: {key} is set to {current}, which serves Delta tables itself; txlog's "
            f"catalog cannot take its place. Pass catalog='txlog' to add txlog's catalog under "
            f"its own name beside it, or catalog=None to add no catalog.")
    if current and current != _CATALOG:
        return None
    return _CATALOG


def _with_jar(existing: str | None, jar: str) -> str:
    jars = [j.strip() for j in (existing or "").split(",") if j.strip()]
    if jar not in jars:
        jars.append(jar)
    return ",".join(jars)


def spark_settings(jars: str | None = None, extensions: str | None = None,
                   catalog: str | None = _SESSION_CATALOG,
                   existing_catalog: str | None = None) -> dict[str, str]:
    """The static settings txlog needs, for ``--conf`` or a cluster's configuration: the jar
    appended to ``spark.jars``, txlog's SQL extension appended to ``spark.sql.extensions``
    (after the ones given, e.g. delta-spark's, whose parser txlog's then wraps), and txlog's
    catalog (``txlog.sql.TxlogCatalog``) as ``spark.sql.catalog.<catalog>``: by default the
    session catalog, so ``CREATE TABLE ... USING txlog`` and table names work (docs/sql.md).
    ``existing_catalog`` is what that setting holds already: another catalog is kept (the
    setting is left out), delta-spark's ``DeltaCatalog`` is a ValueError (pass
    ``catalog="txlog"`` to name txlog's catalog beside it, or ``catalog=None`` for none). All
    take effect only when a session starts: a running session cannot take them.

    >>> s = spark_settings(extensions="io.delta.sql.DeltaSparkSessionExtension")
    >>> s["spark.sql.extensions"]
    'io.delta.sql.DeltaSparkSessionExtension,txlog.sql.TxlogSparkSessionExtensions'
    >>> s["spark.sql.catalog.spark_catalog"]
    'txlog.sql.TxlogCatalog'
    """
    settings = {_JARS: _with_jar(jars, find_jar()),
                _EXTENSIONS: _with_jar(extensions, _EXTENSION)}
    if catalog is not None:
        value = _catalog_setting(catalog, existing_catalog)
        if value is not None:
            settings[_catalog_key(catalog)] = value
    return settings


def connect_server_settings(jars: str | None = None, extensions: str | None = None,
                            catalog: str | None = _SESSION_CATALOG,
                            existing_catalog: str | None = None,
                            relation_plugins: str | None = None) -> dict[str, str]:
    """The settings a Spark Connect server needs for txlog's Python API to work from its
    clients: those of :func:`spark_settings` (the jar, the SQL extension, the catalog), and
    txlog's Connect plugin appended to ``spark.connect.extensions.relation.classes`` (after the
    plugins given). Pass them as ``--conf`` to the server's ``spark-submit`` (or
    ``start-connect-server.sh``), or to a cluster's Spark configuration; the command line
    prints them: ``python -m txlog connect-server-settings``.

    >>> s = connect_server_settings()
    >>> s["spark.connect.extensions.relation.classes"]
    'txlog.connect.TxlogConnectPlugin'
    """
    settings = spark_settings(jars, extensions, catalog, existing_catalog)
    settings[_RELATION_PLUGINS] = _with_jar(relation_plugins, _PLUGIN)
    return settings


def _remote(builder: SparkSession.Builder) -> bool:
    """Whether ``builder`` makes a session of a Spark Connect server that runs elsewhere (an
    ``sc://`` URL in ``spark.remote`` or ``SPARK_REMOTE``): its settings are the server's."""
    with builder._lock:
        url = builder._options.get("spark.remote")
    url = str(url) if url is not None else os.environ.get("SPARK_REMOTE", "")
    return url.startswith("sc://")


def configure_spark(builder: B, catalog: str | None = _SESSION_CATALOG) -> B:
    """Appends the txlog jar to ``spark.jars`` of a ``SparkSession.Builder`` (or a
    ``SparkConf``), and txlog's SQL statements (``txlog.sql.TxlogSparkSessionExtensions``,
    docs/sql.md) to ``spark.sql.extensions``, keeping what is already listed there; sets
    txlog's catalog as ``spark.sql.catalog.<catalog>`` (by default the session catalog, so
    tables ``USING txlog`` have names), unless another catalog is set there already (kept), and
    returns the builder. Set delta-spark's extension before calling it: txlog's parser then
    wraps delta-spark's. delta-spark's ``DeltaCatalog`` as that catalog is a ValueError: pass
    ``catalog="txlog"`` to add txlog's catalog under that name beside it, or ``catalog=None``.

    It also names txlog's Spark Connect plugin (``spark.connect.extensions.relation.classes``),
    for a Connect server the session starts (``spark.api.mode=connect`` on a local master). A
    builder of a session of a remote Connect server (``.remote("sc://...")`` or
    ``SPARK_REMOTE``) is returned unchanged: that server needs
    :func:`connect_server_settings`.

    The jar is found and its version checked first (see :func:`txlog._jar.find_jar`); nothing
    is written into pyspark's installation. ``spark.jars`` only takes effect when the Spark
    JVM starts and ``spark.sql.extensions`` when a session starts, so configure the builder
    before the first session is created (for a cluster's settings: :func:`spark_settings`).

    >>> spark = configure_spark(SparkSession.builder.appName("app")).getOrCreate()
    """
    if isinstance(builder, SparkSession.Builder) and _remote(builder):
        return builder
    if not isinstance(builder, (SparkSession.Builder, SparkConf)):
        raise TypeError(
            "builder must be a pyspark.sql.SparkSession.Builder (e.g. SparkSession.builder) or "
            f"a pyspark.SparkConf, got {type(builder).__module__}.{type(builder).__qualname__}"
        )
    if catalog is not None:
        _catalog_key(catalog)
    jar = find_jar()
    if isinstance(builder, SparkSession.Builder):
        with builder._lock:
            get = builder._options.get
            catalog_value = None if catalog is None else _catalog_setting(
                catalog, None if get(_catalog_key(catalog)) is None
                else str(get(_catalog_key(catalog))))
            for key, value in ((_JARS, jar), (_EXTENSIONS, _EXTENSION),
                               (_RELATION_PLUGINS, _PLUGIN)):
                existing = get(key)
                builder.config(key, _with_jar(None if existing is None else str(existing), value))
            if catalog is not None and catalog_value is not None:
                builder.config(_catalog_key(catalog), catalog_value)
    else:
        catalog_value = None if catalog is None else _catalog_setting(
            catalog, builder.get(_catalog_key(catalog)))
        builder.set(_JARS, _with_jar(builder.get(_JARS), jar))
        builder.set(_EXTENSIONS, _with_jar(builder.get(_EXTENSIONS), _EXTENSION))
        builder.set(_RELATION_PLUGINS, _with_jar(builder.get(_RELATION_PLUGINS), _PLUGIN))
        if catalog is not None and catalog_value is not None:
            builder.set(_catalog_key(catalog), catalog_value)
    return builder
