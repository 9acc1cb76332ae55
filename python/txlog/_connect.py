"""The Spark Connect transport: on a Connect session, each facade call travels as a
``txlog.connect.Call`` message (``_connect_messages``) in a relation's ``extension`` field, and
the server's plugin (``txlog.connect.TxlogConnectPlugin``) runs the same ``PythonFacade`` method
a classic session calls through py4j. What it returns comes back as one row: text, a number, or a
handle standing for the object the server keeps (a log, snapshot, transaction, result or
DataFrame), so the API above it is the same on both transports.

>>> facade = connect_facade(spark)            # spark: a Spark Connect session
>>> jlog = facade.forTable(SESSION, "/data/t")  # a _Handle
"""

from __future__ import annotations

import collections
import json
import re
import threading
import uuid
import weakref
from typing import Any

from pyspark.errors import PySparkException
from pyspark.sql.connect.column import Column as ConnectColumn
from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
from pyspark.sql.connect.plan import LogicalPlan

from . import _connect_messages
from ._version import __version__
from .errors import ERROR_CLASSES, JarVersionMismatchError, SparkNotConfiguredError, error_for

__all__ = ["SESSION", "Sql", "connect_facade", "install_connect_errors",
           "txlog_error"]

_PLUGIN = "txlog.connect.TxlogConnectPlugin"
_TXLOG_EXCEPTION = "txlog.TxlogException"


class _Session:
    """The client's own session as an argument: the server puts its session there."""

    def __repr__(self) -> str:
        return "SESSION"


#: Stands for the session argument of a facade method.
SESSION = _Session()


class Sql:
    """A Column argument given as SQL text, for the server to parse."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Handle:
    """An object the server keeps for this client, by its id; released when no longer held."""

    __slots__ = ("id", "_facade", "__weakref__")

    def __init__(self, facade: ConnectFacade, handle_id: str) -> None:
        self.id = handle_id
        self._facade = facade
        weakref.finalize(self, facade._released.append, handle_id)

    def toString(self) -> str:  # noqa: N802 - py4j's name, as the classic handles have it
        return str(self._facade._invoke("_toString", (self,)))

    def __repr__(self) -> str:
        return f"_Handle({self.id!r})"


class _CallPlan(LogicalPlan):  # type: ignore[misc]
    """A relation holding one call; ``keep`` holds what must outlive it (the handles it names)."""

    def __init__(self, message: bytes, keep: tuple[Any, ...]) -> None:
        super().__init__(None)
        self._message = message
        self._keep = keep

    def plan(self, session: Any) -> Any:
        relation = self._create_proto_relation()
        relation.extension.type_url = _connect_messages.CALL_TYPE_URL
        relation.extension.value = self._message
        return relation


def _frame_of(plan: LogicalPlan, spark: Any) -> ConnectDataFrame:
    with_plan = getattr(ConnectDataFrame, "withPlan", None)  # Spark 3.5's constructor
    return with_plan(plan, spark) if with_plan is not None else ConnectDataFrame(plan, spark)


def _error_of(error_class: str, params: dict[str, str], fallback: str) -> BaseException:
    """The txlog error of ``error_class`` with the message the server's ``TxlogException`` had
    (rebuilt from its parts), its file and its version."""
    if "problem" in params:
        message = f"[{error_class}] {params['problem']}"
        if params.get("cause"):
            message += f" Cause: {params['cause']}"
        if params.get("fix"):
            message += f" Fix: {params['fix']}"
    else:
        message = fallback
    version = params.get("version")
    return error_for(error_class, message, params.get("file"),
                     None if version is None else int(version))


def _error_class(e: PySparkException) -> str | None:
    """A Connect error's class (its condition, as Spark 4 names it)."""
    get = getattr(e, "getCondition", None) or e.getErrorClass
    return get()  # type: ignore[no-any-return]


def txlog_error(e: BaseException) -> BaseException | None:
    """The :class:`txlog.errors.TxlogError` for a Connect error whose class is txlog's; else
    None."""
    if not isinstance(e, PySparkException):
        return None
    error_class = _error_class(e)
    if error_class not in ERROR_CLASSES:
        return None
    return _error_of(error_class, dict(e.getMessageParameters() or {}), str(e))


def _cause_error(details: Any) -> BaseException | None:
    """The txlog error among the causes the server sent with an error (``FetchErrorDetails``):
    one a Spark task raised arrives wrapped (``FAILED_READ_FILE`` around
    ``DATA_FILE_NOT_FOUND``), as py4j's cause chain has it."""
    for error in getattr(details, "errors", None) or ():
        if error.HasField("spark_throwable"):
            throwable = error.spark_throwable
            if throwable.error_class in ERROR_CLASSES:
                return _error_of(throwable.error_class, dict(throwable.message_parameters),
                                 error.message)
    return None


def _info_error(info: Any, message: str) -> BaseException | None:
    """The txlog error of an error's gRPC metadata (``errorClass``, ``messageParameters``):
    what Spark 3.5's client converts errors from."""
    metadata = getattr(info, "metadata", None) or {}
    error_class = metadata.get("errorClass")
    text = message
    if error_class is None:
        # Spark 3.5's server sends the exception's classes and message only; a TxlogException's
        # message starts with its error class, in brackets, also as the cause a failed task's
        # message quotes.
        if _TXLOG_EXCEPTION in json.loads(metadata.get("classes") or "[]"):
            text = message.removeprefix(f"({_TXLOG_EXCEPTION}) ")
        else:
            text = message.partition(f"{_TXLOG_EXCEPTION}: ")[2]
        found = re.match(r"\[([A-Z_]+)\] ", text)
        error_class = found.group(1) if found else None
    if error_class not in ERROR_CLASSES:
        return None
    params = json.loads(metadata.get("messageParameters") or "{}")
    return _error_of(error_class, params, text.split("\n")[0])


_installed_lock = threading.Lock()


def install_connect_errors() -> None:
    """Makes the Connect client raise an error of txlog's classes as the mapped
    :class:`txlog.errors.TxlogError` subclass, also when txlog is not the caller (a task's
    ``DATA_FILE_NOT_FOUND`` reaching ``df.collect()``), as ``install_task_errors`` does for py4j:
    the client's converter is wrapped (once per process); any other error converts as before."""
    from pyspark.sql.connect.client import core

    with _installed_lock:
        original = core.convert_exception
        if getattr(original, "_txlog", False):
            return

        def convert_exception(info: Any, message: str, *args: Any, **kwargs: Any) -> Any:
            converted = original(info, message, *args, **kwargs)
            resp = args[0] if args else kwargs.get("resp")  # Spark 4's error details
            return (txlog_error(converted) or _cause_error(resp) or _info_error(info, message)
                    or converted)

        convert_exception._txlog = True  # type: ignore[attr-defined]
        core.convert_exception = convert_exception


class _Method:
    __slots__ = ("_facade", "_name")

    def __init__(self, facade: ConnectFacade, name: str) -> None:
        self._facade = facade
        self._name = name

    def __call__(self, *args: Any) -> Any:
        return self._facade._invoke(self._name, args)


class ConnectFacade:
    """``PythonFacade`` on the server of one Connect session: ``facade.name(*args)`` calls it."""

    def __init__(self, spark: Any) -> None:
        self._spark = spark
        self._released: collections.deque[str] = collections.deque()

    def __getattr__(self, name: str) -> _Method:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Method(self, name)

    def _argument(self, value: Any, name: str, message: Any, keep: list[Any]) -> Any:
        if value is SESSION:
            return {"session": True}
        if isinstance(value, _Handle):
            if value._facade is not self:
                raise ValueError(f"{name}: an object of another Spark Connect session")
            keep.append(value)
            return {"handle": value.id}
        if isinstance(value, ConnectDataFrame):
            if value.sparkSession is not self._spark:
                raise ValueError(f"{name}: a DataFrame of another Spark session")
            message.relations.append(value._plan.plan(self._spark.client).SerializeToString())
            return {"relation": len(message.relations) - 1}
        if isinstance(value, ConnectColumn):
            message.expressions.append(value._expr.to_plan(self._spark.client)
                                       .SerializeToString())
            return {"expression": len(message.expressions) - 1}
        if isinstance(value, Sql):
            return {"sql": value.text}
        if value is None or isinstance(value, (str, bool, int, dict)):
            return value
        raise TypeError(f"{name}: {type(value).__name__} cannot be sent to the server")

    def _message(self, method: str, args: tuple[Any, ...], release: bool
                 ) -> tuple[bytes, tuple[Any, ...]]:
        message = _connect_messages.call_class()(method=method, nonce=uuid.uuid4().hex)
        keep: list[Any] = []
        arguments = [self._argument(a, f"{method} argument {i + 1}", message, keep)
                     for i, a in enumerate(args)]
        message.arguments = json.dumps(arguments)
        if release:
            while True:
                try:
                    message.released.append(self._released.popleft())
                except IndexError:
                    break
        return message.SerializeToString(), tuple(keep)

    def _invoke(self, method: str, args: tuple[Any, ...]) -> Any:
        data, keep = self._message(method, args, release=True)
        try:
            rows = _frame_of(_CallPlan(data, keep), self._spark).collect()
        except PySparkException as e:
            err = txlog_error(e)
            if err is None:
                raise
            raise err from None
        value = json.loads(rows[0][0])["value"]
        if isinstance(value, dict):
            if "handle" in value:
                return _Handle(self, value["handle"])
            if "frame" in value:
                return self.frame(_Handle(self, value["frame"]))
        return value

    def frame(self, handle: _Handle) -> ConnectDataFrame:
        """The client's DataFrame of a DataFrame the server keeps under ``handle``."""
        data, keep = self._message("_frame", (handle,), release=False)
        return _frame_of(_CallPlan(data, keep), self._spark)


_facades_lock = threading.Lock()
_facades: weakref.WeakKeyDictionary[Any, ConnectFacade] = weakref.WeakKeyDictionary()


def _settings_hint() -> str:
    return (f"Start the Connect server with the txlog jar, spark.connect.extensions.relation."
            f"classes={_PLUGIN}, and txlog's SQL extension and catalog: "
            "txlog.connect_server_settings() returns every setting.")


def _no_plugin(e: PySparkException) -> bool:
    """Whether the server answered that no plugin takes txlog's relation: Spark 4's error class
    for it, or Spark 3.5's message, which has no class."""
    return ((_error_class(e) or "").endswith("NO_HANDLER_FOR_EXTENSION")
            or "No handler found for extension" in str(e))


def connect_facade(spark: Any) -> ConnectFacade:
    """The facade of a Connect session. The first call per session checks that the server has
    txlog's plugin (:class:`txlog.errors.SparkNotConfiguredError` naming the settings when not)
    and that its jar's version equals the package's."""
    with _facades_lock:
        facade = _facades.get(spark)
    if facade is not None:
        return facade
    install_connect_errors()
    facade = ConnectFacade(spark)
    try:
        jar_version = facade._invoke("version", ())
    except PySparkException as e:
        if not _no_plugin(e):
            raise  # the server is unreachable, or failed otherwise: its own error
        raise SparkNotConfiguredError(
            f"The Spark Connect server does not run txlog's plugin ({e.__class__.__name__}: "
            f"{str(e).splitlines()[0] if str(e) else ''}). {_settings_hint()}") from e
    if jar_version != __version__:
        raise JarVersionMismatchError(
            f"The txlog jar of the Spark Connect server has version {jar_version}, but the "
            f"txlog Python package has version {__version__}. Install matching versions and "
            "restart the server.",
            python_version=__version__,
            jar_version=str(jar_version),
        )
    with _facades_lock:
        _facades[spark] = facade
    return facade
