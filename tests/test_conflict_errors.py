"""Commit conflicts raised by the JVM map to typed Python errors by error class, with the
winning commit's version and the first conflicting file as structured fields."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from txlog import _gateway
from txlog.errors import (
    ConcurrentAppendError, ConcurrentDeleteDeleteError, ConcurrentDeleteReadError,
    ConcurrentModificationError, ConcurrentTransactionError, MetadataChangedError,
    ProtocolChangedError, TxlogError,
)


def jvm_error(error_class: str, file: str | None, version: int) -> SimpleNamespace:
    """Stands for a txlog.TxlogException as py4j shows it (its Java getters)."""
    return SimpleNamespace(getErrorClass=lambda: error_class, getMessage=lambda: "msg",
                           getFile=lambda: file, getVersion=lambda: version)


@pytest.mark.parametrize("error_class, cls, file", [
    ("CONCURRENT_APPEND", ConcurrentAppendError, "part=a/f1.parquet"),
    ("CONCURRENT_DELETE_READ", ConcurrentDeleteReadError, "f2.parquet"),
    ("CONCURRENT_DELETE_DELETE", ConcurrentDeleteDeleteError, "f3.parquet"),
    ("METADATA_CHANGED", MetadataChangedError, None),
    ("PROTOCOL_CHANGED", ProtocolChangedError, None),
    ("CONCURRENT_TRANSACTION", ConcurrentTransactionError, None),
])
def test_conflicts_are_typed(error_class: str, cls: type, file: str | None) -> None:
    err = _gateway._error_of(jvm_error(error_class, file, 7))
    assert type(err) is cls
    assert isinstance(err, ConcurrentModificationError) and isinstance(err, TxlogError)
    assert err.error_class == error_class
    assert err.winning_version == 7
    assert err.file == file
    assert not err.retryable


def test_other_errors_are_not_conflicts() -> None:
    err = _gateway._error_of(jvm_error("VERSION_NOT_FOUND", None, -1))
    assert not isinstance(err, ConcurrentModificationError)
