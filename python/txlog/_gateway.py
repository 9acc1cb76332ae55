"""The py4j boundary: every call into the JVM goes through :func:`call`, which turns a
``txlog.TxlogException`` anywhere in the Java cause chain into the mapped Python exception.

>>> facade = jvm_facade(spark)
>>> jlog = call(facade.forTable, spark._jsparkSession, "/data/t")
"""

from __future__ import annotations

import threading
from typing import Any, Callable, TypeVar

from pyspark.sql import DataFrame, SparkSession

try:
    from py4j.java_gateway import JavaClass  # type: ignore[import-untyped]
    from py4j.protocol import Py4JJavaError  # type: ignore[import-untyped]
    from pyspark.errors.exceptions.captured import CapturedException
except ImportError:  # pyspark-client: Spark Connect only, no py4j and no classic sessions

    class _NoPy4J(Exception):
        """Stands for py4j's classes, which nothing raises or returns without py4j."""

    JavaClass = Py4JJavaError = CapturedException = _NoPy4J

from ._version import __version__
from .errors import (
    JarVersionMismatchError,
    SparkNotConfiguredError,
    error_for,
)

__all__ = ["call", "call_text", "frame", "is_connect", "jvm_facade", "java_session",
           "TXLOG_EXCEPTION", "install_task_errors"]

T = TypeVar("T")

#: The JVM class whose instances carry an error class.
TXLOG_EXCEPTION = "txlog.TxlogException"
_FACADE = "txlog.python.PythonFacade"
# Guards against cyclic cause chains.
_MAX_CAUSE_DEPTH = 64

_checked_lock = threading.Lock()
# Gateways (one per JVM) whose PythonFacade version was checked, kept alive so ids stay unique.
_checked_gateways: dict[int, Any] = {}
# Per JVM view: the view (kept alive, as above) and the facade's class handle. Resolving
# ``jvm.txlog.python.PythonFacade`` costs a failed class lookup per package name, each a search
# of every jar on the classpath (measured: about a third of loading a small table), so it is
# resolved once per view.
_facades: dict[int, tuple[Any, Any]] = {}


class _Facade:
    """``PythonFacade``'s class with each static method looked up once: py4j resolves
    ``facade.name`` on a class by asking the JVM (a round trip per access, about a tenth of
    loading a small table), while the member it returns can be called any number of times."""

    __slots__ = ("_jclass", "_members")

    def __init__(self, jclass: Any) -> None:
        self._jclass = jclass
        self._members: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        member = self._members.get(name)
        if member is None:
            member = getattr(self._jclass, name)
            self._members[name] = member  # a race only looks the member up twice
        return member


def _find_txlog_exception(jexc: Any) -> Any | None:
    """The first ``txlog.TxlogException`` in a Java exception's cause chain, or None."""
    seen = 0
    while jexc is not None and seen < _MAX_CAUSE_DEPTH:
        if jexc.getClass().getName() == TXLOG_EXCEPTION:
            return jexc
        jexc = jexc.getCause()
        seen += 1
    return None


def _error_of(jexc: Any) -> Any:
    """The Python error for a ``txlog.TxlogException``, with its file and version."""
    version = jexc.getVersion()
    return error_for(jexc.getErrorClass(), jexc.getMessage(), jexc.getFile(),
                     None if version < 0 else version)


_installed_lock = threading.Lock()


def install_task_errors() -> None:
    """Makes PySpark raise a ``txlog.TxlogException`` found in a Java cause chain as the mapped
    :class:`txlog.errors.TxlogError` subclass, also when txlog is not the caller: an error a
    Spark task raised while reading a table's rows (``DATA_FILE_NOT_FOUND``) reaches
    ``df.collect()`` as the job's failure, which PySpark converts with
    ``pyspark.errors.exceptions.captured.convert_exception``; that converter is wrapped here
    (once per process). Any other error converts as before."""
    try:
        from pyspark.errors.exceptions import captured
    except ImportError:  # pyspark-client: no py4j, no classic session's errors to convert
        return

    with _installed_lock:
        original = captured.convert_exception
        if getattr(original, "_txlog", False):
            return

        def convert_exception(e: Any) -> Any:
            try:
                jexc = _find_txlog_exception(e) if e is not None else None
            except Exception:  # a JVM that is gone: convert as PySpark would
                jexc = None
            if jexc is not None:
                return _error_of(jexc)
            return original(e)

        convert_exception._txlog = True  # type: ignore[attr-defined]
        captured.convert_exception = convert_exception


def call(method: Callable[..., T], *args: Any) -> T:
    """Calls a py4j method; a ``txlog.TxlogException`` in the Java cause chain is raised as
    the mapped :class:`txlog.errors.TxlogError` subclass (``from None``); any other error
    propagates unchanged.
    """
    try:
        return method(*args)
    except Py4JJavaError as e:
        jexc = _find_txlog_exception(e.java_exception)
        if jexc is None:
            raise
        err = _error_of(jexc)
    except CapturedException as e:
        # PySpark's installed py4j handler converts some JVM exceptions before we see them;
        # it keeps the Java exception as `_origin`.
        origin = getattr(e, "_origin", None)
        jexc = _find_txlog_exception(origin) if origin is not None else None
        if jexc is None:
            raise
        err = _error_of(jexc)
    raise err from None


def call_text(method: Callable[..., Any], *args: Any) -> str:
    """Like :func:`call`, for a facade method that returns text: a ``str``, or, when the text
    is too long for one py4j answer, its parts (``txlog.python.PythonText.Parts``), read one
    call each. One answer past py4j's 8 KiB buffer waits about 40 ms for a delayed ACK."""
    text = call(method, *args)
    if text is None or isinstance(text, str):
        return text
    return "".join(call(text.part, i) for i in range(call(text.count)))


def java_session(spark: SparkSession) -> Any:
    """The JVM SparkSession behind a classic PySpark session, or, for a Spark Connect session,
    the marker the server replaces with the client's session (TypeError for anything else)."""
    jspark = getattr(spark, "_jsparkSession", None)
    if jspark is None or getattr(spark, "_jvm", None) is None:
        if is_connect(spark):
            from ._connect import SESSION

            return SESSION
        raise TypeError(
            "spark must be a pyspark.sql.SparkSession (classic or Spark Connect), got "
            f"{type(spark).__module__}.{type(spark).__qualname__}"
        )
    return jspark


def is_connect(obj: Any) -> bool:
    """Whether ``obj`` (a session, DataFrame or Column) is Spark Connect's."""
    return type(obj).__module__.startswith("pyspark.sql.connect")


def frame(result: Any, spark: SparkSession) -> DataFrame:
    """The DataFrame a facade call returned: a JVM DataFrame wrapped for ``spark``, or, on Spark
    Connect, the client's DataFrame the transport built."""
    if is_connect(result):
        return result  # type: ignore[no-any-return]
    return DataFrame(result, spark)


def jvm_facade(spark: SparkSession) -> Any:
    """``txlog.python.PythonFacade`` in the session's JVM, or, on a Spark Connect session, on
    its server (through txlog's plugin, ``txlog._connect``). The first call per JVM (or Connect
    session) checks that the class exists and that its version equals the package's."""
    if is_connect(spark):
        from ._connect import connect_facade

        return connect_facade(spark)
    java_session(spark)  # TypeError for a session of any other kind
    jvm: Any = spark._jvm
    gateway = spark.sparkContext._gateway
    with _checked_lock:
        known = _facades.get(id(jvm)) if id(gateway) in _checked_gateways else None
    if known is not None and known[0] is jvm:
        return known[1]
    jclass = jvm.txlog.python.PythonFacade
    if not isinstance(jclass, JavaClass):
        raise SparkNotConfiguredError(
            f"The class {_FACADE} is not on the Spark driver's classpath: the SparkSession was "
            "not configured with txlog.configure_spark. Build the session with "
            "`txlog.configure_spark(SparkSession.builder).getOrCreate()`, stopping any session "
            "that was started before (spark.jars only applies when the JVM starts)."
        )
    with _checked_lock:
        if id(gateway) not in _checked_gateways:
            jar_version = call(jclass.version)
            if jar_version != __version__:
                raise JarVersionMismatchError(
                    f"The txlog jar loaded in the Spark JVM has version {jar_version}, but the "
                    f"txlog Python package has version {__version__}. Rebuild the jar (make "
                    "jar) or install matching versions, and restart the Spark session.",
                    python_version=__version__,
                    jar_version=str(jar_version),
                )
            _checked_gateways[id(gateway)] = gateway
        facade = _Facade(jclass)
        _facades[id(jvm)] = (jvm, facade)
    return facade
