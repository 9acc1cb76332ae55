"""Tables on Azure Blob Storage through hadoop-azure's own `wasb://` client, against a local
Azurite (``make test-azure`` installs Azurite and fetches hadoop-azure, then runs this module;
elsewhere it is skipped). Azure Blob without a hierarchical namespace has no put-if-absent that
hadoop-azure exposes: txlog reads such a table, refuses to write it (STORAGE_NOT_ATOMIC, before
anything is written), and the exclusive-create probe, asked of the real client, refuses it too;
single-writer mode writes. ADLS Gen2's DFS endpoint, which ABFS needs, is not served by
Azurite: its rename mode is tested on a stand-in (NamespaceRenameSuite)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

AZURITE_ENV, JARS_ENV = "TXLOG_AZURITE", "TXLOG_AZURE_JARS"
SCRIPT = Path(__file__).parent / "scripts" / "azure_blob.py"
REPO = Path(__file__).resolve().parent.parent
PORT = 10000  # hadoop-azure's storage emulator account is at 127.0.0.1:10000

pytestmark = pytest.mark.skipif(
    not (os.environ.get(AZURITE_ENV) and os.environ.get(JARS_ENV)),
    reason=f"needs {AZURITE_ENV} and {JARS_ENV}: run `make test-azure`",
)


@pytest.fixture(scope="module")
def azurite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    data = tmp_path_factory.mktemp("azurite")
    proc = subprocess.Popen(
        [os.environ[AZURITE_ENV], "--blobHost", "127.0.0.1", "--blobPort", str(PORT),
         "--location", str(data), "--silent", "--skipApiVersionCheck", "--loose"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", PORT), timeout=1).close()
                # Ours, not another server already on the port.
                assert proc.poll() is None, f"Azurite could not start on port {PORT}"
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.2)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # it waits for idle connections to close
            proc.kill()
            proc.wait(10)


def test_wasb_reads_and_refuses_writes_unless_single_writer(azurite: None, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    run = subprocess.run([sys.executable, str(SCRIPT), os.environ[JARS_ENV], str(tmp_path)],
                         capture_output=True, text=True, env=env, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    # Read through hadoop-azure: the table as written locally (3 commits, a checkpoint).
    assert out["read"] == {"version": 3, "num_files": 3}, out
    assert out["publishing"]["scheme"] == "wasb", out
    assert not out["publishing"]["concurrent_writers"], out
    assert out["publishing"]["method"].startswith("refused"), out
    # Refused before anything is written.
    assert out["default"]["error_class"] == "STORAGE_NOT_ATOMIC", out
    assert out["unchanged_after_default"], out
    # Asked to try create(overwrite = false), the probe finds wasb does not refuse the second.
    assert out["exclusive_create"]["error_class"] == "STORAGE_NOT_ATOMIC", out
    assert "create(overwrite = false)" in out["exclusive_create"]["message"], out
    print("exclusive create on wasb:", out["exclusive_create"]["message"])
    assert out["unchanged_after_exclusive_create"], out
    # One writer promised: check-then-create through hadoop-azure.
    assert out["single_writer"] == {"version": 4}, out
    assert out["after"] == {"version": 4}, out
