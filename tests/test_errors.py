"""Typed errors and argument checks of the Python API: JVM error classes map to Python
exceptions, bad arguments raise TypeError / ValueError naming the argument."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from pyspark.sql import SparkSession

import txlog
from txlog import DeltaLog
from txlog.errors import (
    CorruptLogError, InvalidArgumentError, JarVersionMismatchError, SparkNotConfiguredError,
    TableNotFoundError, TimestampOutOfRangeError, TxlogError, UnsupportedFeatureError,
    VersionNotFoundError,
)

TIME_TRAVEL = "golden/time-travel-start-start20-start40"


def log_of(spark: SparkSession, fixtures: Path, name: str) -> DeltaLog:
    return DeltaLog.for_table(spark, fixtures / name)


def test_not_a_delta_table(spark: SparkSession, fixtures: Path, tmp_path: Path) -> None:
    with pytest.raises(TableNotFoundError) as info:
        log_of(spark, fixtures, "golden/no-delta-log-folder").snapshot()
    assert info.value.error_class == "DELTA_TABLE_NOT_FOUND"
    assert "no-delta-log-folder" in info.value.message
    with pytest.raises(TableNotFoundError):
        DeltaLog.for_table(spark, tmp_path / "does-not-exist").snapshot()


def test_version_not_found(spark: SparkSession, fixtures: Path) -> None:
    with pytest.raises(VersionNotFoundError) as info:
        log_of(spark, fixtures, "golden/checkpoint").snapshot(version=1000)
    assert info.value.error_class == "VERSION_NOT_FOUND"
    assert not isinstance(info.value, TimestampOutOfRangeError)
    assert info.value.__suppress_context__  # raised `from None`


def test_version_gap(spark: SparkSession, fixtures: Path) -> None:
    with pytest.raises(CorruptLogError) as info:
        log_of(spark, fixtures, "golden/versions-not-contiguous").snapshot()
    assert info.value.error_class == "LOG_VERSION_GAP"


@pytest.mark.parametrize("name, error, error_classes", [
    ("golden/versions-not-contiguous", CorruptLogError, {"LOG_VERSION_GAP"}),
    ("golden/deltalog-state-reconstruction-without-metadata", CorruptLogError,
     {"MISSING_METADATA"}),
    ("golden/deltalog-state-reconstruction-without-protocol", CorruptLogError,
     {"MISSING_PROTOCOL"}),
    ("golden/deltalog-state-reconstruction-from-checkpoint-missing-metadata", CorruptLogError,
     {"MISSING_METADATA"}),
    ("golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol", CorruptLogError,
     {"MISSING_PROTOCOL"}),
    ("golden/deltalog-invalid-protocol-version", TxlogError,
     {"INVALID_PROTOCOL", "UNSUPPORTED_READER_VERSION"}),
])
def test_invalid_fixture_is_refused(spark: SparkSession, fixtures: Path, name: str,
                                    error: type[TxlogError], error_classes: set[str]) -> None:
    """Tables that are meant to fail: a correct reader raises a clear error."""
    with pytest.raises(error) as info:
        log_of(spark, fixtures, name).snapshot()
    assert info.value.error_class in error_classes
    if info.value.error_class == "UNSUPPORTED_READER_VERSION":
        assert isinstance(info.value, UnsupportedFeatureError)


@pytest.mark.classic_only
def test_java_cause_chain_is_walked(spark: SparkSession) -> None:
    """A TxlogException wrapped in other Java exceptions is still mapped by its class."""
    from py4j.protocol import Py4JJavaError

    from txlog._gateway import call

    jvm = spark._jvm

    none = jvm.scala.Option.empty()  # no file, no version

    def failing(jexc: object) -> object:
        future = jvm.java.util.concurrent.CompletableFuture.failedFuture(jexc)
        return lambda: future.get()

    inner = jvm.txlog.TxlogException("LOG_VERSION_GAP", "gap", "", "", None, none, none)
    outer = jvm.java.lang.RuntimeException("outer", inner)
    with pytest.raises(CorruptLogError) as info:
        call(failing(outer))
    assert info.value.error_class == "LOG_VERSION_GAP"
    assert "gap" in info.value.message

    unknown = jvm.txlog.TxlogException("SOMETHING_NEW", "new", "", "", None, none, none)
    with pytest.raises(TxlogError) as info2:
        call(failing(unknown))
    assert type(info2.value) is TxlogError and info2.value.error_class == "SOMETHING_NEW"

    invalid = jvm.txlog.TxlogException("INVALID_ARGUMENT", "bad", "", "", None, none, none)
    with pytest.raises(ValueError):
        call(failing(invalid))

    # PySpark converts some Java exceptions (here IllegalArgumentException) itself; the
    # TxlogException in the converted exception's Java cause chain is still found.
    from pyspark.errors.exceptions.captured import IllegalArgumentException

    def raise_converted() -> None:
        raise IllegalArgumentException(
            origin=jvm.java.lang.IllegalArgumentException("wrapped", inner))

    with pytest.raises(CorruptLogError, match="gap"):
        call(raise_converted)

    # Other Java errors propagate unchanged.
    with pytest.raises(Py4JJavaError):
        call(failing(jvm.java.lang.IllegalStateException("not ours")))


@pytest.mark.parametrize("kwargs, error, words", [
    ({"version": True}, TypeError, "version"),
    ({"version": 1.0}, TypeError, "version"),
    ({"version": "1"}, TypeError, "version"),
    ({"version": -1}, ValueError, "version"),
    ({"version": 0, "timestamp": "2024-01-01"}, ValueError, "version or timestamp"),
    ({"timestamp": 1700000000}, TypeError, "timestamp"),
    ({"timestamp": ""}, ValueError, "timestamp"),
    ({"timestamp": "yesterday"}, InvalidArgumentError, "timestamp"),
])
def test_snapshot_argument_errors(spark: SparkSession, fixtures: Path, kwargs: dict[str, object],
                                  error: type[Exception], words: str) -> None:
    log = log_of(spark, fixtures, TIME_TRAVEL)
    with pytest.raises(error, match=words):
        log.snapshot(**kwargs)  # type: ignore[arg-type]


def test_invalid_argument_is_value_error(spark: SparkSession, fixtures: Path) -> None:
    with pytest.raises(ValueError) as info:
        log_of(spark, fixtures, TIME_TRAVEL).snapshot(timestamp="not a time")
    assert isinstance(info.value, InvalidArgumentError)
    assert info.value.error_class == "INVALID_ARGUMENT"


def test_version_accepts_index_types(spark: SparkSession, fixtures: Path) -> None:
    import numpy as np

    assert log_of(spark, fixtures, TIME_TRAVEL).snapshot(version=np.int64(1)).version == 1


@pytest.mark.parametrize("path, error", [
    (123, TypeError), (None, TypeError), (b"/tmp/t", TypeError), ("", ValueError),
    ("   ", ValueError),
])
def test_for_table_argument_errors(spark: SparkSession, path: object,
                                   error: type[Exception]) -> None:
    with pytest.raises(error, match="path"):
        DeltaLog.for_table(spark, path)  # type: ignore[arg-type]


def test_for_table_needs_a_classic_session() -> None:
    with pytest.raises(TypeError, match="spark"):
        DeltaLog.for_table(object(), "/tmp/t")  # type: ignore[arg-type]


@pytest.mark.classic_only
def test_unconfigured_session(spark: SparkSession) -> None:
    missing = spark._jvm.txlog.python.NoSuchFacade  # a py4j JavaPackage: no such class
    fake = SimpleNamespace(
        _jsparkSession=spark._jsparkSession,
        _jvm=SimpleNamespace(txlog=SimpleNamespace(python=SimpleNamespace(PythonFacade=missing))),
        sparkContext=spark.sparkContext,
    )
    with pytest.raises(SparkNotConfiguredError, match="configure_spark"):
        DeltaLog.for_table(fake, "/tmp/t")  # type: ignore[arg-type]


@pytest.mark.classic_only
def test_jvm_version_mismatch(spark: SparkSession, monkeypatch: pytest.MonkeyPatch) -> None:
    from txlog import _gateway

    monkeypatch.setattr(_gateway, "_checked_gateways", {})
    monkeypatch.setattr(_gateway, "__version__", "9.9.9")
    with pytest.raises(JarVersionMismatchError) as info:
        DeltaLog.for_table(spark, "/tmp/t")
    assert "9.9.9" in str(info.value) and "0.1.0" in str(info.value)
    assert info.value.jar_version == "0.1.0" and info.value.python_version == "9.9.9"


def test_public_api() -> None:
    assert set(txlog.__all__) >= {"configure_spark", "DeltaLog", "Snapshot", "Protocol",
                                  "Metadata", "errors", "__version__"}
    assert txlog.errors.TimestampOutOfRangeError.__mro__[1] is VersionNotFoundError
    assert issubclass(InvalidArgumentError, ValueError)
    assert (Path(txlog.__file__).parent / "py.typed").is_file()


@pytest.mark.classic_only
def test_storage_failure_is_a_retryable_log_read_error(spark: SparkSession) -> None:
    """LOG_READ_FAILED maps to LogReadError (an OSError, not a CorruptLogError), carrying the
    file and version the JVM error names, and says a retry may succeed."""
    from txlog._gateway import call
    from txlog.errors import LogReadError

    jvm = spark._jvm
    # A version past 2^31, so that py4j passes a java.lang.Long into the Option.
    name = "file:/t/_delta_log/00000000003000000000.json"
    cause = jvm.java.nio.file.AccessDeniedException(name)
    jexc = jvm.txlog.errors.TxlogErrors.logReadFailed(name, jvm.scala.Some(3000000000), "denied", cause)
    future = jvm.java.util.concurrent.CompletableFuture.failedFuture(jexc)
    with pytest.raises(LogReadError) as info:
        call(lambda: future.get())
    err = info.value
    assert err.error_class == "LOG_READ_FAILED"
    assert isinstance(err, OSError) and not isinstance(err, CorruptLogError)
    assert err.retryable is True
    assert err.file == name
    assert err.version == 3000000000

    corrupt = jvm.txlog.errors.TxlogErrors.malformedLogFile(
        "file:/t/_delta_log/00000000000000000004.json", 4, "bad line", None)
    future2 = jvm.java.util.concurrent.CompletableFuture.failedFuture(corrupt)
    with pytest.raises(CorruptLogError) as info2:
        call(lambda: future2.get())
    assert info2.value.retryable is False
    assert (info2.value.file, info2.value.version) == (
        "file:/t/_delta_log/00000000000000000004.json", 4)
