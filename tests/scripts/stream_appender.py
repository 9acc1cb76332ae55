"""The source writer of tests/test_stream_faults.py: delta-spark appends rows with new ids to the
table at argv[1] (one file per commit) and OPTIMIZEs it every 20 commits, until the file argv[2]
exists; after each commit it prints the ids it added (`first count`, flushed): acknowledged."""

from __future__ import annotations

import os
import sys
import time

import sessions


def main() -> None:
    path, stop, package = sys.argv[1], sys.argv[2], sys.argv[3]
    spark = sessions.delta_spark("txlog-stream-faults-appender", 1, package)
    from delta.tables import DeltaTable

    first, commits = 0, 0
    while not os.path.exists(stop):
        count = 5 + commits % 7
        rows = spark.range(first, first + count).selectExpr("id", f"{commits} AS commit")
        rows.repartition(1).write.format("delta").mode("append").save(path)
        print(first, count, flush=True)
        first += count
        commits += 1
        if commits % 20 == 0:
            DeltaTable.forPath(spark, path).optimize().executeCompaction()
        time.sleep(0.2)


if __name__ == "__main__":
    main()
