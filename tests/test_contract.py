"""One contract for the four surfaces: each Scala result owns its summary fields (snake_case, the
ones ``toJson`` and the command line's ``--json`` give), and the Python result classes read every
one of them, under the same names: a field added on the JVM side and not here fails below.
The JVM's documents are taken from the facade, the one entry Python uses."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from pyspark.sql import SparkSession

import txlog
from txlog._gateway import call, call_text
from txlog.delta_log import CheckpointResult
from txlog.repair import RepairResult
from txlog.restore import RestoreResult
from txlog.transaction import CommitResult
from txlog.vacuum import VacuumResult

def _names(cls: type) -> set[str]:
    """The summary fields of a Python result: all but JVM handles and DataFrames of rows."""
    return {f.name for f in dataclasses.fields(cls)
            if not f.name.startswith("_") and "DataFrame" not in str(f.type)}


def _summary_keys(doc: dict) -> set[str]:
    """A maintenance summary's keys: the facade names them as Python does."""
    return set(doc)


def _files(spark: SparkSession, names: list[str]):
    rows = [(n, 100, {"d": "x"}, 1_700_000_000_000, True) for n in names]
    return spark.createDataFrame(
        rows, "path string, size long, partitionValues map<string,string>, "
        "modificationTime long, dataChange boolean",
    )  # fmt: skip


def test_python_results_read_every_field_the_jvm_summarises(
    spark: SparkSession, tmp_path: Path
) -> None:
    log = txlog.create_table(spark, str(tmp_path / "t"), "id BIGINT, d STRING",
                             partition_by=["d"])  # fmt: skip
    facade, jlog = log._facade, log._jlog

    jtxn = call(facade.startTransaction, jlog)
    call(facade.addFiles, jtxn, _files(spark, ["a.parquet"])._jdf)
    commit = json.loads(call(facade.commit, jtxn, "WRITE", {}))
    assert commit["version"] == 1 and commit["checkpoint_version"] is None
    assert set(commit) == _names(CommitResult)

    checkpoint = json.loads(call_text(facade.checkpoint, jlog, {}))
    assert checkpoint["version"] == 1 and checkpoint["num_add_files"] == 1
    assert set(checkpoint) == _names(CheckpointResult)

    vacuum = json.loads(call(facade.vacuumSummary, call(facade.vacuum, jlog, {})))
    assert vacuum["dry_run"] is True
    assert _summary_keys(vacuum) == _names(VacuumResult)

    restore = json.loads(call(facade.restore, jlog, {"version": "0", "dryRun": "true"}))
    assert restore["restored_version"] == 0 and restore["num_removed_files"] == 1
    assert _summary_keys(restore) == _names(RestoreResult)

    repair = json.loads(call(facade.repairSummary, call(facade.repair, jlog, {})))
    assert repair["dry_run"] is True and repair["commit_version"] is None  # a dry run commits none
    assert _summary_keys(repair) == _names(RepairResult)

    # The Python API gives the same values it was given.
    r = log.restore(version=0, dry_run=True)
    assert (r.restored_version, r.num_removed_files) == (0, 1)
    described = log.describe()
    assert described["num_files"] == 1 and described["health"]["checkpoint_version"] == 1
