"""Run by `make wheel-check` in a fresh virtualenv holding only pyspark of one Spark line and
the txlog wheel: configure_spark must pick the wheel's jar of that line, and a table must read.

Usage: python wheel_smoke.py TABLE_PATH
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pyspark
from pyspark.sql import SparkSession

import txlog


def main(table: str) -> None:
    line = ".".join(pyspark.__version__.split(".")[:2])
    spark = txlog.configure_spark(SparkSession.builder.master("local[1]")).getOrCreate()
    jar = Path(spark.conf.get("spark.jars"))
    assert jar.parent == Path(txlog.__file__).parent / "jars", f"not the wheel's jar: {jar}"
    assert jar.name.startswith(f"txlog-spark_{line}_"), f"{jar.name} is not Spark {line}'s"
    snap = txlog.DeltaLog.for_table(spark, table).snapshot()
    # The expected version is the newest commit file in the table's log.
    newest = max(int(m.group(1)) for f in os.listdir(Path(table) / "_delta_log")
                 if (m := re.fullmatch(r"(\d{20})\.json", f)))
    assert snap.version == newest, (snap.version, newest)
    files = snap.all_files().count()
    assert files == snap.num_files, (files, snap.num_files)
    print(f"pyspark {pyspark.__version__}: {jar.name} read {table} at version {snap.version} "
          f"({snap.num_files} files)")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
