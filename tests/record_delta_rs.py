"""Records delta-rs's answers on the shared fixtures (``make oracle-record`` runs it):
tests/oracle/delta-rs-<deltalake version>.json, read by the agreement tests
(tests/oracle_recording.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle_recording import record  # noqa: E402
from txlog_testing import FIXTURES_MISSING, fixtures_available  # noqa: E402

if __name__ == "__main__":
    if not fixtures_available():
        sys.exit(FIXTURES_MISSING)
    out = record()
    print(f"recorded delta-rs's answers in {out}")
