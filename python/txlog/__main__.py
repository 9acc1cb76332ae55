"""The maintenance command line: ``python -m txlog <command> --table PATH ...``.

It starts a local SparkSession with :func:`txlog.configure_spark` (``--master``, default
``local[*]``) and runs the same JVM command line as
``spark-submit --class txlog.cli.Main txlog.jar``: results on stdout (``--json``: one JSON
document per table, each with ``exit_code`` and ``retryable``), progress on stderr, the same exit
codes (0 done, 1 findings, 2 usage, 3 refused, 4 retryable failure, 5 other failure).

>>> python -m txlog describe --table /data/events --json
"""

from __future__ import annotations

import json
import sys


def _split_master(argv: list[str]) -> tuple[str, list[str]]:
    """``--master URL`` taken out of ``argv`` (default ``local[*]``), and the rest."""
    master, rest, i = "local[*]", [], 0
    while i < len(argv):
        if argv[i] == "--master" and i + 1 < len(argv):
            master, i = argv[i + 1], i + 2
        elif argv[i].startswith("--master="):
            master, i = argv[i].split("=", 1)[1], i + 1
        else:
            rest.append(argv[i])
            i += 1
    return master, rest


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns its exit code."""
    master, args = _split_master(list(sys.argv[1:] if argv is None else argv))
    from pyspark.sql import SparkSession

    from . import configure_spark
    from ._gateway import java_session, jvm_facade

    builder = (SparkSession.builder.master(master).appName("txlog cli")
               .config("spark.ui.showConsoleProgress", "false"))
    spark = configure_spark(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        sys.stdout.flush()
        # The JVM writes straight to this process's stdout and stderr.
        return int(jvm_facade(spark).cli(java_session(spark), json.dumps(args)))
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
