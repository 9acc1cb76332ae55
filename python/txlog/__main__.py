"""The maintenance command line: ``python -m txlog <command> --table PATH ...``.

It starts a local SparkSession with :func:`txlog.configure_spark` (``--master``, default
``local[*]``) and runs the same JVM command line as
``spark-submit --class txlog.cli.Main txlog.jar``: results on stdout (``--json``: one JSON
document per table, each with ``exit_code`` and ``retryable``), progress on stderr, the same exit
codes (0 done, 1 findings, 2 usage, 3 refused, 4 retryable failure, 5 other failure).
``--help`` and usage errors are answered before Spark starts.

>>> python -m txlog describe --table /data/events --json
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

#: The exit code of ``txlog.cli.Usage`` for a command line that must run (nothing printed).
_GO_ON = 100


def _answer_without_spark(args: list[str]) -> int | None:
    """Help and usage errors, answered by ``txlog.cli.Usage`` in a plain JVM (a second, not the
    seconds a Spark session takes): its exit code, or None when the command must run (or no
    JVM could be started for the check, in which case the Spark command line answers the same).
    """
    from ._jar import _spark_jars_dirs, find_jar

    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        return None
    classpath = [find_jar()] + [str(d / "*") for d in _spark_jars_dirs() if d.is_dir()]
    try:
        done = subprocess.run([java, "-cp", os.pathsep.join(classpath), "txlog.cli.Usage", *args],
                              check=False)
    except OSError:
        return None
    return None if done.returncode == _GO_ON else done.returncode


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


def _connect_server_settings(args: list[str]) -> int:
    """``connect-server-settings [--json]``: the settings of a Spark Connect server for txlog
    (:func:`txlog.connect_server_settings`), as ``--conf`` lines or one JSON object."""
    from ._spark import connect_server_settings

    if any(a not in ("--json",) for a in args):
        print("usage: python -m txlog connect-server-settings [--json]", file=sys.stderr)
        return 2
    settings = connect_server_settings()
    if args:
        print(json.dumps(settings, indent=2))
    else:
        for key, value in settings.items():
            print(f"--conf {key}={value}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns its exit code."""
    master, args = _split_master(list(sys.argv[1:] if argv is None else argv))
    if args[:1] == ["connect-server-settings"]:
        return _connect_server_settings(args[1:])
    answered = _answer_without_spark(args)
    if answered is not None:
        return answered
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
