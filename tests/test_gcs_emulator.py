"""Tables on Google Cloud Storage through the GCS connector itself, against a local
fake-gcs-server (``make test-gcs`` builds the server and fetches the connector, then runs this
module; elsewhere it is skipped): four writer processes x 25 commits race on one table; every
commit lands exactly once with contiguous versions and a distinct txnId; delta-rs (through its
own object store) reads every version, and a fresh txlog process reads the latest. txlog
publishes there with ``create(path, overwrite = false)``, which the connector sends conditional
on ``ifGenerationMatch=0`` (docs/storage.md), after its probe. delta-rs cannot write to this
emulator (its XML-API PUT of a key with ``/`` is refused with 400), so it does not race here.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest
from deltalake import DeltaTable

SERVER_ENV, JAR_ENV = "TXLOG_FAKE_GCS_SERVER", "TXLOG_GCS_CONNECTOR_JAR"
WRITER = Path(__file__).parent / "scripts" / "gcs_writer.py"
REPO = Path(__file__).resolve().parent.parent
BUCKET = "txlog-gcs"
WRITERS, COMMITS = 4, 25

pytestmark = pytest.mark.skipif(
    not (os.environ.get(SERVER_ENV) and os.environ.get(JAR_ENV)),
    reason=f"needs {SERVER_ENV} and {JAR_ENV}: run `make test-gcs`",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("fake-gcs")
    (data / BUCKET).mkdir()
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [os.environ[SERVER_ENV], "-scheme", "http", "-host", "127.0.0.1", "-port", str(port),
         "-backend", "memory", "-external-url", url, "-public-host", f"127.0.0.1:{port}",
         "-data", str(data)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{url}/storage/v1/b", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


def _run(url: str, path: str, writer: int, commits: int, mode: str,
         log: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    args = [sys.executable, str(WRITER), os.environ[JAR_ENV], f"{url}/", path, str(writer),
            str(commits), mode]  # fmt: skip
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log.open("w"), text=True,
                            env=env)  # fmt: skip


def _done(proc: subprocess.Popen[str], log: Path) -> str:
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, log.read_text()[-3000:]
    return out


def _objects(url: str, prefix: str) -> dict[str, bytes]:
    listing = json.load(urllib.request.urlopen(
        f"{url}/storage/v1/b/{BUCKET}/o?prefix={prefix}"))  # fmt: skip
    names = [o["name"] for o in listing.get("items", [])]
    return {n: urllib.request.urlopen(
        f"{url}/storage/v1/b/{BUCKET}/o/{urllib.parse.quote(n, safe='')}?alt=media").read()
        for n in names}  # fmt: skip


def _rs_options(url: str) -> dict[str, str]:
    """delta-rs (object_store) on the emulator: its service account key names the server and
    turns authentication off."""
    key = {"gcs_base_url": url, "disable_oauth": True, "client_email": "", "private_key": "",
           "private_key_id": ""}  # fmt: skip
    return {"google_service_account_key": json.dumps(key)}


def test_racing_writer_processes_each_commit_once(server: str, tmp_path: Path) -> None:
    path = f"gs://{BUCKET}/race"
    _done(_run(server, path, 0, 0, "create", tmp_path / "create.log"), tmp_path / "create.log")
    logs = [tmp_path / f"w{w}.log" for w in range(WRITERS)]
    procs = [(_run(server, path, w, COMMITS, "write", log), log) for w, log in enumerate(logs)]
    versions = [int(v) for p, log in procs for v in _done(p, log).split()]
    n = WRITERS * COMMITS
    assert sorted(versions) == list(range(1, n + 1))

    log_objects = _objects(server, "race/_delta_log/")
    commits = sorted(k.split("/")[-1] for k in log_objects if k.endswith(".json"))
    assert commits == [f"{v:020d}.json" for v in range(n + 1)]
    assert not [k for k in log_objects if "probe" in k], "the probe's object was left behind"
    txn_ids = set()
    for v in versions:
        first = json.loads(log_objects[f"race/_delta_log/{v:020d}.json"].splitlines()[0])
        txn_ids.add(first["commitInfo"]["txnId"])
    assert len(txn_ids) == len(versions)

    # delta-rs reads every version: one file more per commit.
    for v in range(n + 1):
        table = DeltaTable(path, version=v, storage_options=_rs_options(server))
        assert len(table.file_uris()) == v, v

    read = json.loads(_done(_run(server, path, 0, 0, "read", tmp_path / "read.log"),
                            tmp_path / "read.log"))  # fmt: skip
    assert read["version"] == n and read["num_files"] == n, read
    assert read["publishing"]["concurrent_writers"], read
    assert read["publishing"]["method"].startswith("exclusive create"), read
