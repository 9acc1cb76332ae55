"""A Spark Connect client for tests/test_sql_connect.py, run as a process of its own: a Connect
session changes how pyspark's classic API behaves in the process that opens it, and the other
tests share one classic session.

``python sql_client.py SPEC OUT``: SPEC is JSON ``{"remote": "sc://host:port", "steps": [...]}``,
each step ``{"name": ..., "sql": ...}`` (the statement's rows), ``{"name": ..., "append": TABLE,
"rows": [[...]], "schema": DDL}`` (``DataFrame.writeTo(TABLE).append()``) or ``{"name": ...,
"count": TABLE, "where": SQL}`` (``spark.table(TABLE).where(SQL).count()``). OUT gets
``{name: {"rows": [[...]]} | {"count": n} | {"error_class": ..., "message": ...}}``, every step
run whatever the others gave.
"""

from __future__ import annotations

import datetime
import decimal
import json
import sys
from typing import Any

from pyspark.errors import PySparkException
from pyspark.sql import SparkSession


def plain(value: Any) -> Any:
    """A JSON value for a cell: rows and structs as lists, dates and decimals as strings."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (datetime.date, datetime.datetime, decimal.Decimal)):
        return str(value)
    return value


def run(spark: SparkSession, step: dict[str, Any]) -> dict[str, Any]:
    try:
        if "sql" in step:
            return {"rows": [plain(list(r)) for r in spark.sql(step["sql"]).collect()]}
        if "append" in step:
            df = spark.createDataFrame([tuple(r) for r in step["rows"]], step["schema"])
            df.writeTo(step["append"]).append()
            return {"appended": len(step["rows"])}
        if "count" in step:
            return {"count": spark.table(step["count"]).where(step["where"]).count()}
        raise ValueError(f"step {step['name']}: no sql, append or count")
    except PySparkException as e:
        return {"error_class": e.getCondition(), "message": str(e)[:2000]}


def main(spec_path: str, out_path: str) -> None:
    with open(spec_path) as f:
        spec = json.load(f)
    spark = SparkSession.builder.remote(spec["remote"]).getOrCreate()
    try:
        results = {step["name"]: run(spark, step) for step in spec["steps"]}
    finally:
        spark.stop()
    with open(out_path, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
