"""The floor for W1 and W4 (engine `spark-floor`): a bare Spark scan of what a snapshot of the
W1 shape must read, with no Delta logic. It lists `_delta_log`, reads `_last_checkpoint`, scans
the checkpoint's `add.path` and `add.size` (one aggregate job: count, sum of sizes) and reads
the JSON commits after it with a fixed schema (adds' and removes' path and size; one aggregate
job). Its counts are checkpoint adds + tail adds - tail removes: right for the W1 shape, whose
tail removes only live files and adds only new ones, so no reconciliation is needed and the
result is still checked against the manifest. A lower bound for any Spark-based reader:
txlog's W1 time beside it shows what the snapshot costs beyond reading.
"""

from __future__ import annotations

import json
import os
import re

from engines.base import Counts, Unavailable
from engines.spark import SparkEngine, builder

_COMMIT = re.compile(r"^(\d{20})\.json$")
_TAIL_SCHEMA = "add struct<path: string, size: long>, remove struct<path: string, size: long>"


class SparkFloor(SparkEngine):
    name = "spark-floor"

    def session(self, driver_memory: str):
        return builder("bench-spark-floor", driver_memory)

    def load(self, path: str) -> Counts:
        from pyspark.sql import functions as F

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
