"""txlog's SQL served to Spark Connect clients: a Connect server started as a user would
(``spark-submit --class org.apache.spark.sql.connect.service.SparkConnectServer`` with the txlog
jar and ``txlog.connect_server_settings()``: txlog's catalog as the session catalog), and a
Connect client in a process of its own (tests/connect/sql_client.py) creating, writing, reading
and time travelling tables by name, with SQL and with ``DataFrame.writeTo``. That test runs in
the Connect lane (``TXLOG_TEST_SPARK=connect``), on the lane's server; the others here, SQL in
the classic session, run in the classic lane. The expected rows
are the statements' own inputs; delta-rs reads each table the server wrote, with the same rows;
a failure comes back to the client with txlog's error class.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from txlog_testing import REPO_ROOT

sys.path.insert(0, str(Path(__file__).resolve().parent / "cluster"))
import standalone  # noqa: E402

pytest.importorskip("grpc", reason="the Spark Connect client needs pyspark[connect]'s modules")
deltalake = pytest.importorskip("deltalake")

CLIENT = REPO_ROOT / "tests" / "connect" / "sql_client.py"


@pytest.fixture(scope="module")
def server(lane_server: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The Connect lane's server (conftest.py's ``lane_server``: a Connect server of the txlog
    jar, tests/connect/connect_server.py), its warehouse, its remote address, and a directory
    for the client's files. The lane's other suites are its clients too; their tables are
    created by path or under other names."""
    return {"remote": lane_server.remote, "warehouse": lane_server.warehouse,
            "tmp": tmp_path_factory.mktemp("sql-client"), "log": lane_server.log}


def run_client(server: dict[str, Any], name: str, steps: list[dict[str, Any]]
               ) -> dict[str, Any]:
    tmp: Path = server["tmp"]
    spec, out = tmp / f"{name}-spec.json", tmp / f"{name}-out.json"
    spec.write_text(json.dumps({"remote": server["remote"], "steps": steps}))
    run = subprocess.run([sys.executable, str(CLIENT), str(spec), str(out)],
                         env=standalone.spark_env(tmp), capture_output=True, text=True,
                         timeout=600, cwd=tmp)
    assert run.returncode == 0 and out.exists(), (
        f"the client exited with {run.returncode}:\n{run.stderr[-4000:]}\n"
        f"server:\n{standalone.tail(server['log'], 40)}")
    return json.loads(out.read_text())


def rs_rows(path: Path, version: int | None = None) -> list[list[Any]]:
    """The table's rows as delta-rs reads them, sorted, as lists in column order."""
    table = deltalake.DeltaTable(str(path), version=version)
    data = table.to_pyarrow_table()
    return sorted([list(r.values()) for r in data.to_pylist()], key=repr)


def rs_mapped(path: Path, version: int | None = None) -> list[list[Any]]:
    """As rs_rows, through delta-rs's DataFusion reader, which maps column-mapped columns."""
    import pyarrow as pa

    table = deltalake.DeltaTable(str(path), version=version)
    rows = pa.table(deltalake.QueryBuilder().register("t", table).execute("SELECT * FROM t")
                    .read_all()).to_pylist()  # fmt: skip
    return sorted([list(r.values()) for r in rows], key=repr)


@pytest.mark.connect_only
def test_tables_by_name_over_connect(server: dict[str, Any]) -> None:
    steps = [
        {"name": "create", "sql": "CREATE TABLE events (id BIGINT, kind STRING) USING txlog "
                                  "PARTITIONED BY (kind)"},
        {"name": "insert1", "sql": "INSERT INTO events VALUES (1, 'a'), (2, 'b')"},
        {"name": "insert2", "sql": "INSERT INTO events VALUES (3, 'a')"},
        {"name": "latest", "sql": "SELECT id, kind FROM events ORDER BY id"},
        {"name": "v1", "sql": "SELECT id, kind FROM events VERSION AS OF 1 ORDER BY id"},
        {"name": "append", "append": "events", "rows": [[4, "c"]],
         "schema": "id BIGINT, kind STRING"},
        {"name": "count_a", "count": "events", "where": "kind = 'a'"},
        {"name": "after_append", "sql": "SELECT id, kind FROM events ORDER BY id"},
        {"name": "ctas", "sql": "CREATE TABLE small USING txlog AS "
                                "SELECT id FROM events WHERE kind = 'a'"},
        {"name": "small", "sql": "SELECT id FROM small ORDER BY id"},
        {"name": "overwrite", "sql": "INSERT OVERWRITE small SELECT 10"},
        {"name": "small_v0", "sql": "SELECT id FROM small VERSION AS OF 0 ORDER BY id"},
        {"name": "missing_version", "sql": "SELECT * FROM events VERSION AS OF 40"},
        {"name": "history", "sql": "DESCRIBE HISTORY events"},
        {"name": "history_1", "sql": "DESCRIBE HISTORY events LIMIT 1"},
        {"name": "vacuum_short", "sql": "VACUUM events RETAIN 0 HOURS DRY RUN"},
        {"name": "restore", "sql": "RESTORE TABLE events TO VERSION AS OF 1"},
        {"name": "restored", "sql": "SELECT id, kind FROM events ORDER BY id"},
        {"name": "dv_table", "sql": "CREATE TABLE dvs USING txlog TBLPROPERTIES "
                                    "('delta.enableDeletionVectors' = 'true') AS "
                                    "SELECT id, CAST(id % 2 AS STRING) AS kind FROM range(6)"},
        {"name": "delete_rows", "sql": "DELETE FROM dvs WHERE id IN (SELECT 1 UNION SELECT 4)"},
        {"name": "delete_kind", "sql": "DELETE FROM dvs WHERE kind = '1' AND id > 4"},
        {"name": "dvs_left", "sql": "SELECT id FROM dvs ORDER BY id"},
        {"name": "delete_plain", "sql": "DELETE FROM small WHERE id = 10"},
        {"name": "small_left", "sql": "SELECT id FROM small ORDER BY id"},
        {"name": "merge", "sql": "MERGE INTO dvs t USING (SELECT id FROM range(2, 8)) s "
                                 "ON t.id = s.id WHEN MATCHED AND t.id = 2 THEN DELETE "
                                 "WHEN MATCHED THEN UPDATE SET kind = 'm' "
                                 "WHEN NOT MATCHED THEN INSERT (id, kind) VALUES (s.id, 'i')"},
        {"name": "merged", "sql": "SELECT id, kind FROM dvs ORDER BY id"},
        # txlog's table-valued functions, by path, from a client that sends SQL only
        {"name": "tvf_files", "sql": "SELECT path FROM txlog_files('{events}') ORDER BY path"},
        {"name": "tvf_history", "sql": "SELECT version, operation FROM "
                                       "txlog_history('{events}', 2)"},
        {"name": "tvf_bad", "sql": "SELECT * FROM txlog_files(1)"},
    ]
    events_path = str(server["warehouse"] / "events")
    for step in steps:
        if "sql" in step:
            step["sql"] = step["sql"].replace("{events}", events_path)
    got = run_client(server, "tables", steps)
    for name in ("create", "insert1", "insert2", "append", "ctas", "overwrite"):
        assert "error_class" not in got[name], (name, got[name])
    assert got["latest"]["rows"] == [[1, "a"], [2, "b"], [3, "a"]]
    assert got["v1"]["rows"] == [[1, "a"], [2, "b"]]
    assert got["count_a"] == {"count": 2}
    assert got["after_append"]["rows"] == [[1, "a"], [2, "b"], [3, "a"], [4, "c"]]
    assert got["small"]["rows"] == [[1], [3]]
    assert got["small_v0"]["rows"] == [[1], [3]]
    assert got["missing_version"]["error_class"] == "VERSION_NOT_FOUND", got["missing_version"]
    # The session extension's statements: history of versions 0-3 (create, two inserts, the
    # append), newest first; VACUUM's retention check holds over Connect; RESTORE commits
    # version 4 with version 1's rows.
    assert [r[0] for r in got["history"]["rows"]] == [3, 2, 1, 0], got["history"]
    assert [r[0] for r in got["history_1"]["rows"]] == [3], got["history_1"]
    assert got["vacuum_short"]["error_class"] == "VACUUM_RETENTION_TOO_SHORT", got["vacuum_short"]
    assert "error_class" not in got["restore"], got["restore"]
    assert got["restored"]["rows"] == [[1, "a"], [2, "b"]]
    # DELETE by deletion vectors over Connect (a subquery too); copy-on-write on a table
    # without them (its one file's every row deleted: the file removed)
    for name in ("dv_table", "delete_rows", "delete_kind"):
        assert "error_class" not in got[name], (name, got[name])
    assert got["dvs_left"]["rows"] == [[0], [2], [3]]
    assert "error_class" not in got["delete_plain"], got["delete_plain"]
    assert got["small_left"]["rows"] == []
    # MERGE over Connect: 2 deleted, 3 updated, 4 to 7 inserted (4 and 5 were deleted before)
    assert "error_class" not in got["merge"], got["merge"]
    assert got["merged"]["rows"] == [[0, "0"], [3, "m"], [4, "i"], [5, "i"], [6, "i"], [7, "i"]]

    # The functions: delta-rs's files of the table, its last two commits (the RESTORE and the
    # append), an argument that is no path refused with its class
    warehouse: Path = server["warehouse"]
    adds = deltalake.DeltaTable(str(warehouse / "events")).get_add_actions(flatten=True)
    rs_files = sorted(adds.column("path").to_pylist())
    assert [r[0] for r in got["tvf_files"]["rows"]] == rs_files, got["tvf_files"]
    assert [r[0] for r in got["tvf_history"]["rows"]] == [4, 3], got["tvf_history"]
    assert got["tvf_history"]["rows"][0][1] == "RESTORE", got["tvf_history"]
    assert got["tvf_bad"]["error_class"] == "INVALID_ARGUMENT", got["tvf_bad"]

    # What the server wrote, read by delta-rs: the managed tables under the warehouse.
    assert rs_rows(warehouse / "events") == sorted([[1, "a"], [2, "b"]], key=repr)
    # (its scan applies deletion vectors; to_pyarrow_table refuses tables with them)
    dvs = deltalake.DeltaTable(str(warehouse / "dvs")).scan(columns=["id"]).read_all()
    assert sorted(dvs.column("id").to_pylist()) == [0, 3, 4, 5, 6, 7]
    assert rs_rows(warehouse / "events", version=3) == sorted(
        [[1, "a"], [2, "b"], [3, "a"], [4, "c"]], key=repr)
    assert rs_rows(warehouse / "events", version=1) == sorted([[1, "a"], [2, "b"]], key=repr)
    assert rs_rows(warehouse / "small") == []
    assert rs_rows(warehouse / "small", version=1) == [[10]]


@pytest.mark.classic_only
def test_named_catalog_in_a_classic_session(spark: Any, tmp_path: Path) -> None:
    """docs/sql.md's example in the tests' own session (configured by txlog.configure_spark, no
    delta-spark): a table of a named txlog catalog created, appended to and overwritten by
    partition in SQL. Spark's built-in catalog hands such an entry to the txlog provider, which
    must still be known as a txlog table (it was not: INSERT failed, the table having no write
    capability). Expected rows are the statements' own; delta-rs reads the same."""
    spark.conf.set("spark.sql.catalog.txlog_docs", "txlog.sql.TxlogCatalog")
    path = tmp_path / "demo"
    spark.sql("CREATE TABLE txlog_docs.default.docs_demo (id BIGINT, part STRING) USING txlog "
              f"PARTITIONED BY (part) LOCATION '{path}'")
    try:
        spark.sql("INSERT INTO txlog_docs.default.docs_demo VALUES (1, 'a'), (2, 'b')")
        spark.sql("INSERT OVERWRITE txlog_docs.default.docs_demo PARTITION (part = 'a') SELECT 10")
        rows = spark.sql("SELECT id, part FROM txlog_docs.default.docs_demo ORDER BY id").collect()
        assert [list(r) for r in rows] == [[2, "b"], [10, "a"]]
        v1 = spark.sql("SELECT id, part FROM txlog_docs.default.docs_demo VERSION AS OF 1 "
                       "ORDER BY id").collect()
        assert [list(r) for r in v1] == [[1, "a"], [2, "b"]]
        assert rs_rows(path) == sorted([[2, "b"], [10, "a"]], key=repr)
    finally:
        spark.sql("DROP TABLE IF EXISTS txlog_docs.default.docs_demo")


@pytest.mark.classic_only
def test_query_parameters_are_bound(spark: Any, tmp_path: Path) -> None:
    """``spark.sql(text, args)`` in a session with txlog's extension: on Spark 4.1 and later the
    parser binds a query's parameters, and txlog's parser hands them on (it did not: every
    parameterized query failed with UNBOUND_SQL_PARAMETER, any table or none, as with delta-spark
    4.4's extension). Named and positional, on a txlog table and with no table; expected rows
    are the literals written."""
    t = f"txlog.`{tmp_path / 'params'}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, part STRING) USING txlog")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'b')")
    named = spark.sql(f"SELECT id FROM {t} WHERE part = :p ORDER BY id", args={"p": "b"})
    assert [r.id for r in named.collect()] == [2, 3]
    positional = spark.sql(f"SELECT id FROM {t} WHERE id > ? ORDER BY id", args=[1])
    assert [r.id for r in positional.collect()] == [2, 3]
    assert [list(r) for r in spark.sql("SELECT :x AS v", args={"x": 7}).collect()] == [[7]]


@pytest.mark.classic_only
def test_constraints_dynamic_overwrite_and_partition_rename(spark: Any, tmp_path: Path) -> None:
    """ADD / DROP CONSTRAINT, Spark's dynamic overwrite plan (`overwritePartitions()`, INSERT
    OVERWRITE in dynamic mode) and renaming a partition column under column mapping, in the
    tests' own session: the rows are the statements' own (SqlAlterParitySuite compares them with
    delta-spark's), and delta-rs reads each version the same."""
    spark.conf.set("spark.sql.catalog.txlog_ddl", "txlog.sql.TxlogCatalog")
    path = tmp_path / "ddl"
    t = "txlog_ddl.default.ddl_demo"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, part STRING) USING txlog PARTITIONED BY (part) "
              f"LOCATION '{path}' TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    try:
        spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
        spark.sql(f"ALTER TABLE {t} ADD CONSTRAINT positive CHECK (id > 0)")
        with pytest.raises(Exception, match="CONSTRAINT_VIOLATION"):
            spark.sql(f"INSERT INTO {t} VALUES (-1, 'a')")
        props = {r[0]: r[1] for r in spark.sql(f"SHOW TBLPROPERTIES {t}").collect()}
        assert props["delta.constraints.positive"] == "id > 0"
        spark.createDataFrame([(10, "a"), (11, "c")], "id BIGINT, part STRING") \
            .writeTo(t).overwritePartitions()
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        try:
            spark.sql(f"INSERT OVERWRITE {t} SELECT 20, 'b'")
        finally:
            spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
        spark.sql(f"ALTER TABLE {t} RENAME COLUMN part TO region")
        spark.sql(f"ALTER TABLE {t} DROP CONSTRAINT positive")
        spark.sql(f"INSERT INTO {t} VALUES (-1, 'd')")
        rows = [list(r) for r in spark.sql(f"SELECT id, region FROM {t} ORDER BY id").collect()]
        expected = [[-1, "d"], [10, "a"], [11, "c"], [20, "b"]]
        assert rows == expected
        # delta-rs's DataFusion reader (its to_pyarrow_table reads column-mapped columns as nulls)
        assert rs_mapped(path) == sorted(expected, key=repr)
        assert rs_mapped(path, version=3) == sorted([[2, "b"], [10, "a"], [11, "c"]], key=repr)
        ops = [r[0] for r in spark.sql(f"DESCRIBE HISTORY {t}").select("operation").collect()]
        assert ops[:5] == ["WRITE", "DROP CONSTRAINT", "RENAME COLUMN", "WRITE", "WRITE"], ops
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {t}")
