"""The floor for W1, W3 and W4 (engine `spark-floor`): a bare Spark scan of what a snapshot of
the W1 shape must read, with no Delta logic. It lists `_delta_log`, reads `_last_checkpoint`, scans
the checkpoint's `add.path` and `add.size` (one aggregate job: count, sum of sizes) and reads
the JSON commits after it with a fixed schema (adds' and removes' path and size; one aggregate
job). Its counts are checkpoint adds + tail adds - tail removes: right for the W1 shape, whose
tail removes only live files and adds only new ones, so no reconciliation is needed and the
result is still checked against the manifest. A lower bound for any Spark-based reader:
txlog's W1 time beside it shows what the snapshot costs beyond reading.

W3's floor (`checkpoint`) reads the same files whole, the tail with the checkpoint's schema, and
writes them back as parquet in one job (several files, no reconciliation, no `_last_checkpoint`):
the least any Spark-written checkpoint of that table must read and write. `written` counts what
it wrote, for the check against the manifest.
"""

from __future__ import annotations

import json
import os
import re

from engines.base import Counts, Unavailable
from engines.spark import SparkEngine, builder

_COMMIT = re.compile(r"^(\d{20})\.json$")
_TAIL_SCHEMA = "add struct<path: string, size: long>, remove struct<path: string, size: long>"
#: Where W3's floor writes, in the table's scratch copy; its rows from the tail are marked.
_WRITTEN, _FROM_TAIL = "_floor_checkpoint", "_floor_from_tail"


class SparkFloor(SparkEngine):
    name = "spark-floor"

    def session(self, driver_memory: str):
        return builder("bench-spark-floor", driver_memory)

    @staticmethod
    def _files(path: str) -> tuple[int, list[tuple[int, str]], str]:
        """The table's checkpoint version, its tail's commits (version, path) and the
        checkpoint's file."""
        log = os.path.join(path, "_delta_log")
        with open(os.path.join(log, "_last_checkpoint")) as f:
            checkpoint = json.load(f)["version"]
        tail = sorted(
            (int(m.group(1)), os.path.join(log, name))
            for name in os.listdir(log)
            if (m := _COMMIT.match(name)) and int(m.group(1)) > checkpoint
        )
        parquet = os.path.join(log, f"{checkpoint:020d}.checkpoint.parquet")
        if not os.path.exists(parquet):
            raise Unavailable("the floor reads single-file classic checkpoints only")
        return checkpoint, tail, parquet

    def load(self, path: str) -> Counts:
        from pyspark.sql import functions as F

        checkpoint, tail, parquet = self._files(path)
        adds = (
            self.spark.read.parquet(parquet)
            .where(F.col("add.path").isNotNull())
            .agg(F.count("*"), F.sum("add.size"))
            .collect()[0]
        )
        files, size = adds[0], adds[1] or 0
        if tail:
            row = (
                self.spark.read.schema(_TAIL_SCHEMA)
                .json([p for _, p in tail])
                .agg(
                    F.count("add.path"), F.sum("add.size"),
                    F.count("remove.path"), F.sum("remove.size"),
                )  # fmt: skip
                .collect()[0]
            )
            files += row[0] - row[2]
            size += (row[1] or 0) - (row[3] or 0)
        return Counts(tail[-1][0] if tail else checkpoint, files, size)

    def checkpoint(self, path: str) -> None:
        from pyspark.sql import functions as F

        _, tail, parquet = self._files(path)
        base = self.spark.read.parquet(parquet)
        columns = [F.col(c) for c in base.columns]
        state = base.select(*columns, F.lit(False).alias(_FROM_TAIL))
        if tail:
            commits = self.spark.read.schema(base.schema).json([p for _, p in tail])
            state = state.unionByName(commits.select(*columns, F.lit(True).alias(_FROM_TAIL)))
        state.write.mode("error").parquet(os.path.join(path, _WRITTEN))

    def written(self, path: str) -> Counts:
        """What W3's floor wrote into `path`, counted as `load` counts: every add less the
        tail's removes (untimed)."""
        from pyspark.sql import functions as F

        checkpoint, tail, _ = self._files(path)
        tail_remove = F.col(_FROM_TAIL) & F.col("remove.path").isNotNull()
        row = (
            self.spark.read.parquet(os.path.join(path, _WRITTEN))
            .agg(
                F.count("add.path"), F.sum("add.size"),
                F.count(F.when(tail_remove, 1)), F.sum(F.when(tail_remove, F.col("remove.size"))),
            )  # fmt: skip
            .collect()[0]
        )
        version = tail[-1][0] if tail else checkpoint
        return Counts(version, row[0] - row[2], (row[1] or 0) - (row[3] or 0))
