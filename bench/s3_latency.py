"""Loads of tables on S3 with request latency (issue #33's W16 and W18), on demand and outside
run.py for now: the tables are served in place by bench/s3_server.py (a read-only S3 endpoint
over local directories that holds every request DELAY ms) and loaded by txlog (pyspark, S3A),
delta-rs (its own object store) and delta-spark (S3A), each engine in a fresh process per table:
the first load is the cold one, the median of the others the warm one. Each engine's answer
(version, files, bytes) is printed beside its times, and the requests the server answered.

    .venv/bin/python bench/s3_latency.py [--delay-ms 20] [--runs 4] [--threads N] TABLE ...

TABLE is a local table directory (a bench/out/tables/... one, or any Delta table), served as
s3://bench/<its parent's name or its own>. S3A's jars (hadoop-aws and the AWS SDK v2 modules)
are the ones sbt resolves for the tests of the default line, asked of sbt once; delta-spark's
jar comes as run.py's does (`spark.jars.packages`). `--no-start-after` lists with S3A's
ListObjects v1 (`fs.s3a.list.version=1`), which txlog does not list with StartAfter: the
listing as it was before. `--engines` picks engines (default: all three).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from s3_jobs import served_name
from s3_server import BUCKET, S3Server

REPO = Path(__file__).resolve().parents[1]
IDENTITY, CREDENTIAL = "txlog-bench", "txlog-bench-secret"
ENGINES = ("delta-rs", "txlog", "delta-spark")
#: The jars S3A needs beside pyspark's Hadoop client, picked from the test classpath by path.
S3A_JARS = ("hadoop-aws", "software/amazon", "reactive-streams", "reactivestreams")


def s3a_jars() -> list[str]:
    """S3A's jars, as sbt resolves them for the tests."""
    out = subprocess.run(
        [str(REPO / "build" / "sbt"), "export Test/fullClasspath"],
        cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    classpath = next(
        line for line in out.splitlines() if not line.startswith("[") and ".jar" in line
    )
    return [j for j in classpath.strip().split(":") if any(k in j for k in S3A_JARS)]


def delta_rs_options(endpoint: str) -> dict[str, str]:
    """delta-rs's storage options for s3://bench through the server at `endpoint`."""
    return {"AWS_ENDPOINT_URL": endpoint, "AWS_ALLOW_HTTP": "true", "AWS_ACCESS_KEY_ID": IDENTITY,
            "AWS_SECRET_ACCESS_KEY": CREDENTIAL, "AWS_REGION": "us-east-1"}  # fmt: skip


def with_s3a(builder, endpoint: str, jars: str, list_v1: bool):
    """A Spark session builder reading s3a://bench through the server at `endpoint`."""
    s3a = {"endpoint": endpoint, "endpoint.region": "us-east-1", "path.style.access": "true",
           "connection.ssl.enabled": "false",
           "aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
           "access.key": IDENTITY, "secret.key": CREDENTIAL}  # fmt: skip
    if list_v1:
        s3a["list.version"] = "1"
    builder = builder.config("spark.driver.extraClassPath", jars)
    for k, v in s3a.items():
        builder = builder.config(f"spark.hadoop.fs.s3a.{k}", v)
    return builder


def child(args) -> None:
    """One engine's loads of one table in this process; prints the timings as JSON."""
    path = f"s3://{BUCKET}/{args.name}"
    seconds, counts = [], None
    if args.child == "delta-rs":
        import pyarrow as pa
        import pyarrow.compute as pc
        from deltalake import DeltaTable

        opts = delta_rs_options(args.endpoint)
        for _ in range(args.runs):
            started = time.perf_counter()
            table = DeltaTable(path, storage_options=opts)
            adds = pa.table(table.get_add_actions())
            counts = [table.version(), adds.num_rows, pc.sum(adds["size_bytes"]).as_py() or 0]
            seconds.append(time.perf_counter() - started)
    else:
        sys.path[:0] = [str(REPO / "python"), str(REPO / "bench")]
        from worker import make_engine

        engine = make_engine(args.child)
        session = engine.session
        engine.session = lambda memory: with_s3a(
            session(memory), args.endpoint, args.jars, args.no_start_after
        )
        engine.start("4g")
        if args.child == "txlog" and args.threads:
            engine.spark.conf.set("spark.txlog.replay.readThreads", str(args.threads))
        for _ in range(args.runs):
            started = time.perf_counter()
            c = engine.load("s3a" + path[2:])
            seconds.append(time.perf_counter() - started)
            counts = [c.version, c.num_files, c.size_in_bytes]
    print(json.dumps({"seconds": seconds, "counts": counts}))


def run_child(engine: str, name: str, endpoint: str, args, jars: list[str]) -> dict:
    cmd = [sys.executable, __file__, "--child", engine, "--name", name, "--endpoint", endpoint,
           "--runs", str(args.runs), "--jars", ":".join(jars)]
    cmd += ["--threads", str(args.threads)] if args.threads else []
    cmd += ["--no-start-after"] if args.no_start_after else []
    out = subprocess.run(cmd, capture_output=True, text=True)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1][:300]}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tables", nargs="*", type=Path)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=4, help="loads per process; the first is cold")
    parser.add_argument(
        "--threads", type=int, help="spark.txlog.replay.readThreads (default: txlog's own)"
    )
    parser.add_argument("--no-start-after", action="store_true")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--name", help=argparse.SUPPRESS)
    parser.add_argument("--endpoint", help=argparse.SUPPRESS)
    parser.add_argument("--jars", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    engines = [e for e in args.engines.split(",") if e]
    if not args.tables or args.runs < 2 or not set(engines) <= set(ENGINES):
        parser.error(f"name at least one table, --runs of at least 2, engines of {ENGINES}")
    jars = s3a_jars()
    tables = {served_name(t.resolve()): t.resolve() for t in args.tables}
    started = time.perf_counter()
    server = S3Server(tables, args.delay_ms)
    print(f"{len(server.objects.keys):,} objects indexed in {time.perf_counter() - started:.1f} s; "
          f"delay {args.delay_ms:g} ms a request, {args.runs} loads a process, readThreads "
          f"{args.threads or 'default'}, StartAfter {'off' if args.no_start_after else 'on'}")  # fmt: skip
    print("| table | log objects | engine | cold (s) | warm (s) | warm ÷ delta-rs | answer "
          "| requests |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    try:
        for name in tables:
            objects = sum(1 for k in server.objects.keys if k.startswith(f"{name}/_delta_log/"))
            rs_warm = None
            for engine in engines:
                before = server.requests
                r = run_child(engine, name, server.endpoint, args, jars)
                requests = server.requests - before
                if "error" in r:
                    print(f"| {name} | {objects:,} | {engine} | – | – | – | {r['error']} "
                          f"| {requests:,} |", flush=True)  # fmt: skip
                    continue
                warm = statistics.median(r["seconds"][1:])
                if engine == "delta-rs":
                    rs_warm = warm
                ratio = f"{warm / rs_warm:.2f}" if rs_warm else "–"
                print(f"| {name} | {objects:,} | {engine} | {r['seconds'][0]:.2f} | {warm:.2f} "
                      f"| {ratio} | {r['counts']} | {requests:,} |", flush=True)  # fmt: skip
    finally:
        server.close()


if __name__ == "__main__":
    main()
