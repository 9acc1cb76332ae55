"""Loads of tables on S3 with request latency (issue #33's W16 and W18), on demand and outside
run.py for now: each table is uploaded to a local S3 server (S3Proxy, in memory) and loaded
through a proxy that holds every request DELAY ms, by txlog (pyspark, S3A) and delta-rs (its
own object store), each engine in a fresh process per table: the first load is the cold one,
the median of the others the warm one.

    .venv/bin/python bench/s3_latency.py [--delay-ms 20] [--runs 4] [--threads 16] TABLE ...

TABLE is a local table directory (a bench/out/tables/... one, or any Delta table), uploaded as
s3://bench/<its parent's name or its own>. S3Proxy's jar and S3A's jars (hadoop-aws and the AWS
SDK v2 modules) are the ones sbt resolves for the tests of the default line, asked of sbt once.
`--no-start-after` lists with S3A's ListObjects v1 (`fs.s3a.list.version=1`), which txlog does
not list with StartAfter: the listing as it was before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IDENTITY, CREDENTIAL, BUCKET = "txlog-bench", "txlog-bench-secret", "bench"
#: The jars S3A needs beside pyspark's Hadoop client, picked from the test classpath by path.
S3A_JARS = ("hadoop-aws", "software/amazon", "reactive-streams", "reactivestreams")


def sbt_paths() -> tuple[str, list[str]]:
    """S3Proxy's jar and S3A's jars, as sbt resolves them for the tests."""
    out = subprocess.run(
        [str(REPO / "build" / "sbt"), "show Test/javaOptions", "export Test/fullClasspath"],
        cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    proxy = next(line.split("=", 1)[1].strip() for line in out.splitlines()
                 if "-Dtxlog.test.s3proxy.jar=" in line)  # fmt: skip
    classpath = next(
        line for line in out.splitlines() if not line.startswith("[") and ".jar" in line
    )
    jars = [j for j in classpath.strip().split(":") if any(k in j for k in S3A_JARS)]
    return proxy, jars


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_s3proxy(jar: str, port: int, work: Path) -> subprocess.Popen:
    conf = work / "s3proxy.conf"
    conf.write_text("\n".join([
        f"s3proxy.endpoint=http://127.0.0.1:{port}", "s3proxy.authorization=aws-v2-or-v4",
        f"s3proxy.identity={IDENTITY}", f"s3proxy.credential={CREDENTIAL}",
        "jclouds.provider=transient-nio2", f"jclouds.identity={IDENTITY}",
        f"jclouds.credential={CREDENTIAL}",
    ]) + "\n")  # fmt: skip
    log = open(work / "s3proxy.log", "w")
    server = subprocess.Popen(["java", "-Xmx2g", "-jar", jar, "--properties", str(conf)],
                              stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"S3Proxy did not start; see {work / 's3proxy.log'}")


def start_delay_proxy(port: int, upstream: int, delay_s: float) -> None:
    """A TCP proxy in a daemon thread: each burst of bytes from the client waits `delay_s` before
    it is passed on, so with keep-alive connections every request is `delay_s` later."""

    async def pipe(reader, writer, delay):
        try:
            while data := await reader.read(1 << 16):
                if delay:
                    await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def handle(client_r, client_w):
        server_r, server_w = await asyncio.open_connection("127.0.0.1", upstream)
        await asyncio.gather(pipe(client_r, server_w, delay_s), pipe(server_r, client_w, 0))

    async def serve():
        server = await asyncio.start_server(handle, "127.0.0.1", port)
        async with server:
            await server.serve_forever()

    threading.Thread(target=lambda: asyncio.run(serve()), daemon=True).start()


def s3fs(endpoint: str):
    import pyarrow.fs as pafs

    return pafs.S3FileSystem(access_key=IDENTITY, secret_key=CREDENTIAL, region="us-east-1",
                             endpoint_override=endpoint, scheme="http",
                             allow_bucket_creation=True)  # fmt: skip


def upload(endpoint: str, table: Path, name: str) -> int:
    """Copies `table` (without Hadoop's .crc side files) to s3://bench/<name>; its log objects."""
    import pyarrow.fs as pafs

    fs = s3fs(endpoint)
    fs.create_dir(BUCKET)
    files = [p for p in table.rglob("*") if p.is_file() and not p.name.endswith(".crc")]

    def put(f: Path) -> None:
        with fs.open_output_stream(f"{BUCKET}/{name}/{f.relative_to(table).as_posix()}") as out:
            out.write(f.read_bytes())

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(put, files))
    selector = pafs.FileSelector(f"{BUCKET}/{name}/_delta_log")
    return sum(1 for i in fs.get_file_info(selector) if i.type == pafs.FileType.File)


def child(args) -> None:
    """One engine's loads of one table in this process; prints the timings as JSON."""
    path = f"s3://{BUCKET}/{args.name}"
    seconds, counts = [], None
    if args.child == "delta-rs":
        import pyarrow as pa
        import pyarrow.compute as pc
        from deltalake import DeltaTable

        opts = {"AWS_ENDPOINT_URL": args.endpoint, "AWS_ALLOW_HTTP": "true",
                "AWS_ACCESS_KEY_ID": IDENTITY, "AWS_SECRET_ACCESS_KEY": CREDENTIAL,
                "AWS_REGION": "us-east-1"}  # fmt: skip
        for _ in range(args.runs):
            started = time.perf_counter()
            table = DeltaTable(path, storage_options=opts)
            adds = pa.table(table.get_add_actions())
            counts = [table.version(), adds.num_rows, pc.sum(adds["size_bytes"]).as_py() or 0]
            seconds.append(time.perf_counter() - started)
    else:
        sys.path[:0] = [str(REPO / "python"), str(REPO / "bench")]
        import txlog
        from engines.spark import builder

        b = builder("s3-latency", "4g").config("spark.driver.extraClassPath", args.jars)
        s3a = {"endpoint": args.endpoint, "endpoint.region": "us-east-1",
               "path.style.access": "true", "connection.ssl.enabled": "false",
               "aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
               "access.key": IDENTITY, "secret.key": CREDENTIAL}  # fmt: skip
        if args.no_start_after:
            s3a["list.version"] = "1"
        for k, v in s3a.items():
            b = b.config(f"spark.hadoop.fs.s3a.{k}", v)
        spark = txlog.configure_spark(b).getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        spark.conf.set("spark.txlog.replay.readThreads", str(args.threads))
        for _ in range(args.runs):
            started = time.perf_counter()
            snapshot = txlog.DeltaLog.for_table(spark, "s3a" + path[2:]).snapshot()
            counts = [snapshot.version, snapshot.num_files, snapshot.size_in_bytes]
            seconds.append(time.perf_counter() - started)
    print(json.dumps({"seconds": seconds, "counts": counts}))


def run_child(engine: str, name: str, endpoint: str, args, jars: list[str]) -> dict:
    cmd = [sys.executable, __file__, "--child", engine, "--name", name, "--endpoint", endpoint,
           "--runs", str(args.runs), "--threads", str(args.threads), "--jars", ":".join(jars)]
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
    parser.add_argument("--threads", type=int, default=16, help="spark.txlog.replay.readThreads")
    parser.add_argument("--no-start-after", action="store_true")
    parser.add_argument("--child", choices=["txlog", "delta-rs"], help=argparse.SUPPRESS)
    parser.add_argument("--name", help=argparse.SUPPRESS)
    parser.add_argument("--endpoint", help=argparse.SUPPRESS)
    parser.add_argument("--jars", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    if not args.tables or args.runs < 2:
        parser.error("name at least one table, and --runs of at least 2")
    proxy_jar, jars = sbt_paths()
    work = Path(tempfile.mkdtemp(prefix="s3-latency-"))
    port, delayed = free_port(), free_port()
    server = start_s3proxy(proxy_jar, port, work)
    try:
        start_delay_proxy(delayed, port, args.delay_ms / 1000)
        endpoint = f"http://127.0.0.1:{delayed}"
        print(f"delay {args.delay_ms:g} ms a request, {args.runs} loads a process, "
              f"readThreads {args.threads}, StartAfter {'off' if args.no_start_after else 'on'}")
        print("| table | log objects | engine | cold (s) | warm (s) | warm ÷ delta-rs | answer |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for table in args.tables:
            table = table.resolve()
            name = table.parent.name if table.name == "table" else table.name
            objects = upload(f"http://127.0.0.1:{port}", table, name)
            results = {e: run_child(e, name, endpoint, args, jars) for e in ("delta-rs", "txlog")}
            rs = results["delta-rs"]
            rs_warm = statistics.median(rs["seconds"][1:]) if "seconds" in rs else None
            for engine, r in results.items():
                if "error" in r:
                    print(f"| {name} | {objects:,} | {engine} | – | – | – | {r['error']} |")
                    continue
                warm = statistics.median(r["seconds"][1:])
                ratio = f"{warm / rs_warm:.2f}" if rs_warm else "–"
                print(f"| {name} | {objects:,} | {engine} | {r['seconds'][0]:.2f} | {warm:.2f} "
                      f"| {ratio} | {r['counts']} |", flush=True)  # fmt: skip
    finally:
        server.kill()


if __name__ == "__main__":
    main()
