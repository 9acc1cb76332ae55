"""Builds a class data sharing (CDS) archive for the Spark driver's JVM, to shorten the first
txlog load of a fresh JVM (a `spark-submit` maintenance job, a new notebook).

    .venv/bin/python examples/cds_archive.py target/cds/txlog.jsa      # or: make cds

It runs the demo (replay, history, time travel, checkpoint, version checksum, cleanup,
commits) in a JVM started with `-XX:ArchiveClassesAtExit`, then replays and checkpoints a
scratch copy of the demo table once more with every read distributed (the path large tables
take), so that the classes of both paths are archived when the JVM exits. Use the archive by
starting the driver with `-XX:SharedArchiveFile=<archive>` (docs/platforms.md, "Cold start").
The archive holds only the JVM's own class data: it is valid for this JDK and this Spark
installation's class path; with another, the JVM ignores it (with a warning) and starts as
usual.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from pyspark import SparkContext
from pyspark.sql import SparkSession

import txlog

sys.path.insert(0, str(Path(__file__).resolve().parent))
import demo  # noqa: E402  (the demo module beside this script)

DISTRIBUTED = {
    "spark.txlog.replay.maxLocalReadBytes": "0",
    "spark.txlog.replay.maxDriverCheckpointBytes": "0",
}


def distributed_pass(table: Path) -> None:
    """Loads, lists and checkpoints a scratch copy of `table` with every read by Spark jobs."""
    builder = SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "4")
    for key, value in DISTRIBUTED.items():
        builder = builder.config(key, value)
    spark = txlog.configure_spark(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        with tempfile.TemporaryDirectory(prefix="txlog-cds-") as scratch:
            copy = Path(scratch) / table.name
            shutil.copytree(table, copy)
            log = txlog.DeltaLog.for_table(spark, copy)
            snapshot = log.snapshot()
            print(f"distributed pass: {snapshot.num_files} files, "
                  f"{snapshot.all_files().count()} listed, {snapshot.num_tombstones} tombstones")
            log.checkpoint()
            txlog.DeltaLog.for_table(spark, copy).snapshot().num_files
    finally:
        spark.stop()


def main(archive: Path) -> None:
    archive = archive.resolve()
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.unlink(missing_ok=True)
    # The driver JVM starts with the first session; PYSPARK_SUBMIT_ARGS carries the option.
    os.environ["PYSPARK_SUBMIT_ARGS"] = (
        f"--driver-java-options '-XX:ArchiveClassesAtExit={archive} -Xlog:cds=off' pyspark-shell"
    )
    demo.main(str(demo.DEMO_TABLE))
    distributed_pass(demo.DEMO_TABLE)
    # The JVM writes the archive as it exits, which it does when its stdin closes.
    jvm = SparkContext._gateway.proc
    jvm.stdin.close()
    if jvm.wait(timeout=600) != 0 or not archive.is_file():
        sys.exit(f"the JVM exited with status {jvm.returncode} and wrote no archive {archive}")
    print(f"\nWrote {archive} ({archive.stat().st_size >> 20} MiB). Use it with\n"
          f"  spark.driver.extraJavaOptions=-XX:SharedArchiveFile={archive}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: examples/cds_archive.py ARCHIVE (e.g. target/cds/txlog.jsa)")
    main(Path(sys.argv[1]))
