"""Prints, as one JSON object, the row count delta-spark reads at every version of the table at
argv[1] (for tests/test_stream_faults.py)."""

from __future__ import annotations

import json
import sys

import sessions


def main() -> None:
    path, package = sys.argv[1], sys.argv[2]
    spark = sessions.delta_spark("txlog-delta-spark-versions", 2, package)
    latest = spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0].version
    counts = {
        v: spark.read.format("delta").option("versionAsOf", v).load(path).count()
        for v in range(latest + 1)
    }
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
