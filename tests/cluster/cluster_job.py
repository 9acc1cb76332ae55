"""The job of the cluster test (tests/test_cluster.py), run with spark-submit as a user would.

For each table of a spec it runs txlog's operations in order -- replay, history, time travel by
version and by timestamp, describe and validate, checkpoints, version checksums, log
compaction, a cached snapshot updated across a small and a large commit, metadata cleanup (a
dry run, then for real) -- and writes what each step returned, normalized so that two runs on
two copies of a table compare equal (the table's root and UUIDs replaced, file lists reduced
to counts, sizes and an order-independent hash), plus each step's time in seconds.

    spark-submit --master spark://127.0.0.1:7077 --jars txlog.jar --py-files txlog.zip \\
        tests/cluster/cluster_job.py --spec spec.json --out result.json

The spec (JSON): ``{"tables": [{"name", "path", "kind": "fixture" | "w1", "full": bool,
"conf": {...}}], "hadoop": {...}}``. ``hadoop`` settings are set at run time on the driver's
Hadoop configuration only (as a notebook sets credentials), so executors see them only if txlog
ships them; a table's ``conf`` is set on the session while it runs (e.g. budgets that force
txlog's distributed paths); ``full`` adds describe, validate and a checkpoint of another kind.
A step that raises records the error instead of a value; the job goes on with the next step.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

# The job's own modules sit beside it; spark-submit puts only the --py-files on the path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pyspark.sql import SparkSession  # noqa: E402

import txlog  # noqa: E402
from job_record import Table  # noqa: E402
from job_steps import run_table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.spec) as f:
        spec = json.load(f)
    started = time.perf_counter()
    spark = SparkSession.builder.appName("txlog-cluster-job").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    for k, v in spec.get("hadoop", {}).items():
        hadoop.set(k, v)
    sc = spark.sparkContext
    # Where txlog's Python code came from, on the driver and in the executors' Python workers.
    workers = sorted(set(sc.parallelize(range(4), 2).map(
        lambda _: __import__("txlog").__file__).collect()))
    out: dict[str, Any] = {
        "master": sc.master,
        "default_parallelism": sc.defaultParallelism,
        "txlog_driver_file": txlog.__file__,
        "txlog_worker_files": workers,
        "startup_s": round(time.perf_counter() - started, 3),
        "tables": {},
    }
    for table_spec in spec["tables"]:
        t = Table(spark, table_spec)
        began = time.perf_counter()
        for k, v in t.conf.items():
            spark.conf.set(k, v)
        try:
            run_table(t)
        finally:
            for k in t.conf:
                spark.conf.unset(k)
        out["tables"][t.name] = {"results": t.results, "timings": t.timings,
                                 "total_s": round(time.perf_counter() - began, 3)}
    out["total_s"] = round(time.perf_counter() - started, 3)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, default=str)
    spark.stop()


if __name__ == "__main__":
    main()