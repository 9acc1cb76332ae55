"""What only a Spark Connect session has: the transport's own checks (a server without txlog's
plugin, calls outside the API, released handles) and a Connect client's transaction racing a
classic session's writer on one table. Run by ``TXLOG_TEST_SPARK=connect`` (``make test``'s
pytest-connect part), where the other API suites run on Connect too; not collected on classic.

The race's expected error classes are delta-spark's for the same conflicts, in the order its
``ConflictChecker`` checks them: files a winner that is no blind append added where the loser
read (``CONCURRENT_APPEND``), then files it removed that the loser read
(``CONCURRENT_DELETE_READ``), then files both removed; the rows after it are read by delta-rs.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Any

import deltalake
import pytest
from pyspark.sql import SparkSession

import txlog
from txlog import errors

pytestmark = pytest.mark.connect_only

CONNECT_DIR = Path(__file__).resolve().parent / "connect"
WAIT_S = 300


def _table(spark: SparkSession, path: str) -> txlog.DeltaLog:
    log = txlog.create_table(spark, path, "id BIGINT, d STRING", partition_by=["d"])
    rows = spark.range(10).selectExpr("id", "IF(id % 2 = 0, 'a', 'b') AS d")
    txlog.write(rows, path, mode="append")
    return log


def test_a_server_without_the_plugin_names_its_settings(
        spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from txlog import _connect, _connect_messages

    # A type URL the plugin does not take reaches the server as any relation extension does
    # on a server without the plugin: no plugin answers it.
    monkeypatch.setattr(_connect_messages, "CALL_TYPE_URL", "type.googleapis.com/other.Call")
    monkeypatch.setattr(_connect, "_facades", weakref.WeakKeyDictionary())
    with pytest.raises(errors.SparkNotConfiguredError) as info:
        txlog.DeltaLog.for_table(spark, str(tmp_path))
    assert "txlog.connect.TxlogConnectPlugin" in str(info.value)
    assert "connect_server_settings" in str(info.value)


def test_only_the_api_is_callable(spark: SparkSession, tmp_path: Path) -> None:
    from txlog._connect import SESSION, connect_facade

    facade = connect_facade(spark)
    log = txlog.create_table(spark, str(tmp_path / "t"), "id BIGINT")
    for method, args in (("getClass", ()), ("cli", (SESSION, "[]")), ("mapper", ()),
                         ("wait", ()), ("_nothing", ())):
        with pytest.raises(errors.InvalidArgumentError, match="not a method of txlog's API"):
            facade._invoke(method, args)
    with pytest.raises(errors.InvalidArgumentError, match="takes 2 arguments"):
        facade._invoke("forTable", (SESSION,))
    snapshot = log.snapshot()
    with pytest.raises(errors.InvalidArgumentError, match="a handle of a DeltaLog"):
        facade._invoke("tablePath", (snapshot._jsnapshot,))
    with pytest.raises(errors.InvalidArgumentError, match="must be text"):
        facade._invoke("forTable", (SESSION, 7))


def test_released_handles_are_dropped_on_the_server(spark: SparkSession, tmp_path: Path) -> None:
    from txlog._connect import _Handle, connect_facade

    facade = connect_facade(spark)
    txlog.create_table(spark, str(tmp_path / "t"), "id BIGINT")
    log = txlog.DeltaLog.for_table(spark, str(tmp_path / "t"))
    handle_id = log._jlog.id
    assert log.table_path.endswith("/t")
    del log
    gc.collect()
    assert handle_id in facade._released
    txlog.DeltaLog.for_table(spark, str(tmp_path / "t")).snapshot()  # sends the release
    assert handle_id not in facade._released
    with pytest.raises(errors.InvalidArgumentError, match=f"{handle_id} is not an object"):
        facade._invoke("tablePath", (_Handle(facade, handle_id),))


def _wait_for(path: Path, writer: subprocess.Popen[str]) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    while not path.exists():
        if writer.poll() is not None or time.monotonic() > deadline:
            writer.kill()
            _, err = writer.communicate()
            pytest.fail(f"the classic writer stopped before {path.name}:\n{err[-4000:]}")
        time.sleep(0.05)
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def test_connect_transaction_races_a_classic_writer(
        spark: SparkSession, tmp_path: Path, txlog_jar: str) -> None:
    path = str(tmp_path / "t")
    log = _table(spark, path)
    sync = tmp_path / "sync"
    sync.mkdir()
    sys.path.insert(0, str(CONNECT_DIR.parent / "cluster"))
    import standalone

    # A classic process: none of the Connect mode this one runs in.
    env = {k: v for k, v in standalone.spark_env(tmp_path).items()
           if k not in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE", "SPARK_LOCAL_REMOTE")}
    env["TXLOG_JAR"] = txlog_jar
    writer = subprocess.Popen([sys.executable, str(CONNECT_DIR / "classic_writer.py"), path,
                               str(sync)], env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(sync / "ready.json", writer)
        # 1. The Connect client reads partition a and stages its removal; the classic writer
        # deletes that partition first: the client's commit is the loser.
        txn = log.start_transaction()
        txn.remove_files(txn.read_files("partitionValues_parsed.d = 'a'"))
        (sync / "go-delete").touch()
        assert _wait_for(sync / "deleted.json", writer) == {"version": 2}
        with pytest.raises(errors.ConcurrentModificationError) as lost:
            txn.commit("DELETE")
        assert lost.value.error_class == "CONCURRENT_DELETE_READ"
        assert txn.result is None
        # 2. The classic writer reads partition b and stages its removal; the Connect client
        # deletes a row of it first (rewriting its file, an add there): the classic commit is the
        # loser. (A blind append there would not conflict: WriteSerializable, as delta-spark's.)
        assert _wait_for(sync / "staged.json", writer) == {"read_version": 2}
        assert log.delete("id = 1").version == 3
        (sync / "go-commit").touch()
        assert _wait_for(sync / "committed.json", writer) == {
            "error_class": "CONCURRENT_APPEND"}
        assert writer.wait(timeout=120) == 0
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    # Nothing lost: each winner's commit is there whole, no loser's; delta-rs reads the rows.
    table = deltalake.DeltaTable(path)
    assert table.version() == 3
    assert [h["operation"] for h in table.history()] == ["DELETE", "DELETE", "WRITE",
                                                          "CREATE TABLE"]
    rows = sorted(r["id"] for r in table.to_pyarrow_table().to_pylist())
    assert rows == [3, 5, 7, 9]
