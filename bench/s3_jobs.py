"""Loads through S3 with a delay on every request, as run.py jobs (issue #33's W16 and W18).

run.py serves the tables of these jobs in place with s3_server.py (`serving`, after the tables
are prepared, before any engine is timed) and hands the endpoint and S3A's jars to the worker
processes in the environment; a worker with an S3 job points its engine at the endpoint before
its session starts (`configure`): txlog and delta-spark through S3A, delta-rs through its own
object store. Every load's answer is checked against the table's manifest, as local loads are.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from s3_server import BUCKET, S3Server

#: The worker's view of the server: {"endpoint": ..., "jars": [...]}.
ENV = "TXLOG_BENCH_S3"
#: worker.py tasks that load through the server.
TASKS = ("load_s3",)
#: The engines that load through it (the others record these jobs as unavailable).
ENGINES = ("txlog", "txlog-baseline", "txlog-cds", "delta-rs", "delta-spark")


def served_name(table: Path) -> str:
    """The table's name under the bucket: its generated directory's name (w1-1000000)."""
    table = table.resolve()
    return table.parent.name if table.name == "table" else table.name


@contextmanager
def serving(tables: list[Path], delay_ms: float) -> Iterator[S3Server]:
    """The server over `tables`, its endpoint and S3A's jars in this process's environment
    (inherited by the workers) until the block ends."""
    from s3_latency import s3a_jars

    names: dict[str, Path] = {}
    for t in tables:
        other = names.setdefault(served_name(t), t)
        if other != t:  # one would be loaded in place of the other
            raise ValueError(f"tables: {t} and {other} would both be served as {served_name(t)}")
    jars = s3a_jars()
    server = S3Server(names, delay_ms)
    os.environ[ENV] = json.dumps({"endpoint": server.endpoint, "jars": jars})
    try:
        yield server
    finally:
        os.environ.pop(ENV, None)
        server.close()


def configure(engine) -> None:
    """Points `engine` (not started yet) at the server named in the environment."""
    from engines.base import Unavailable
    from s3_latency import delta_rs_options, with_s3a

    if engine.name not in ENGINES:
        raise Unavailable(f"{engine.name} does not load through S3 in the bench")
    if ENV not in os.environ:
        raise Unavailable(f"no S3 server: {ENV} is not set (run.py sets it)")
    server = json.loads(os.environ[ENV])
    if engine.name == "delta-rs":
        engine.storage_options = delta_rs_options(server["endpoint"])
        return

    session = engine.session
    engine.session = lambda memory: with_s3a(
        session(memory), server["endpoint"], ":".join(server["jars"]), list_v1=False
    )


def url(engine, table: Path) -> str:
    """The table's address through the server, in the engine's scheme."""
    scheme = "s3" if engine.name == "delta-rs" else "s3a"
    return f"{scheme}://{BUCKET}/{served_name(table)}"
