"""Helpers shared by the tests (imported as a plain module: pytest puts tests/ on sys.path)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"
FIXTURES_ROOT = SHARED_DIR / "fixtures"
FIXTURES_MISSING = (
    f"Delta fixtures not available: {FIXTURES_ROOT} is absent (the shared folder ../shared "
    "next to the repository holds them)"
)


def fixtures_available() -> bool:
    return FIXTURES_ROOT.is_dir()


def fixture_tables() -> list[str]:
    """Every Delta table under the fixtures root (folders holding a _delta_log), relative."""
    if not fixtures_available():
        return []
    found = []
    for dirpath, dirnames, _ in os.walk(FIXTURES_ROOT):
        if "_delta_log" in dirnames:
            found.append(os.path.relpath(dirpath, FIXTURES_ROOT))
        dirnames[:] = [d for d in dirnames if d != "_delta_log"]
    return sorted(found)


def copy_table(src: Path, dst: Path) -> Path:
    """Copies a fixture table to a writable place (fixtures are read-only)."""
    shutil.copytree(src, dst)
    for dirpath, dirnames, filenames in os.walk(dst):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o644)
    return dst


def commit_file(table: Path, version: int) -> Path:
    return table / "_delta_log" / f"{version:020d}.json"
