"""build/sbt on a machine without Maven: it must fail with a message saying what to install,
and fetch nothing itself (the project names no registry; Maven's own settings carry it)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_sbt_bootstrap_without_mvn_fails_with_what_to_install(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    (tmp_path / "project").mkdir()
    shutil.copy(ROOT / "build" / "sbt", tmp_path / "build" / "sbt")
    shutil.copy(ROOT / "project" / "build.properties", tmp_path / "project")
    # A PATH with the shell tools the script uses, a java stub, and curl/wget that record
    # being called; no mvn.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "sed", "tr", "cat", "dirname"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    called = tmp_path / "called"
    for tool in ("curl", "wget", "java"):
        stub = bin_dir / tool
        stub.write_text(f"#!{shutil.which('bash')}\necho {tool} >> {called}\nexit 0\n")
        stub.chmod(0o755)
    proc = subprocess.run(
        [str(bin_dir / "bash"), str(tmp_path / "build" / "sbt"), "about"],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Maven (mvn) is needed" in proc.stderr
    assert "apt-get install maven" in proc.stderr
    assert not called.exists(), f"called {called.read_text()}"
    assert not list((tmp_path / "build").glob("sbt-launch-*.jar"))
