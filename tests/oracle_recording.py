"""delta-rs's answers on the read-only fixtures, recorded once by ``make oracle-record``
(``tests/record_delta_rs.py``) into ``tests/oracle/delta-rs-<deltalake version>.json``, so that
the agreement tests compare txlog with the recording instead of asking delta-rs every run.

The recording is stamped with the deltalake version that answered and the digest of each fixture
table (file names and contents, never modification times: the same digests as the Scala
``txlog.oracle.FixtureDigest``). It is used only when both match the running deltalake and the
fixtures present; otherwise :func:`load` raises :class:`RecordingError` naming what differs.
Paths under the fixtures' root are recorded relative to a placeholder, so the recording reads
true wherever the fixtures are.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from txlog_testing import FIXTURES_ROOT, REPO_ROOT, tables_under

RECORDING_DIR = REPO_ROOT / "tests" / "oracle"
ROOT_PLACEHOLDER = "${fixtures}"
HINT = "run `make oracle-record` to record the oracles' answers for the fixtures present"

# Older versions compared besides the latest, at most this many per table.
MAX_OLDER_VERSIONS = 2


class RecordingError(Exception):
    """The recording is absent, or was made of other fixtures or by another deltalake."""


def older_versions(latest: int) -> list[int]:
    """Version 0 and one in the middle (before a checkpoint, if any, in most fixtures)."""
    if latest == 0:
        return []
    return sorted({0, latest // 2})[:MAX_OLDER_VERSIONS]


# ---- digests ------------------------------------------------------------------------------

def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def table_digest(table_dir: Path) -> str:
    """Every regular file below the table's folder, as ``<relative path>\\n<sha-256>\\n`` in
    path order."""
    entries = []
    for dirpath, _, filenames in os.walk(table_dir):
        for name in filenames:
            f = Path(dirpath) / name
            if f.is_file() and not f.is_symlink():
                entries.append((f.relative_to(table_dir).as_posix(), f))
    lines = "".join(f"{rel}\n{_sha256(f.read_bytes())}\n" for rel, f in sorted(entries))
    return _sha256(lines.encode("utf-8"))


def fixture_digests(root: Path) -> dict[str, str]:
    return {t: table_digest(root / t) for t in tables_under(root)}


def combined_digest(digests: dict[str, str]) -> str:
    return _sha256("".join(f"{t}\t{d}\n" for t, d in sorted(digests.items())).encode("utf-8"))


# ---- answers ------------------------------------------------------------------------------

@dataclass(frozen=True)
class DeltaRsAnswer:
    """What delta-rs reads of one version: what the agreement tests compare."""

    version: int
    min_reader_version: int
    min_writer_version: int
    reader_features: tuple[str, ...] | None
    writer_features: tuple[str, ...] | None
    metadata_id: str
    partition_columns: tuple[str, ...]
    # (path normalized as delta_rs_oracle.normalize_path, size, partition values as JSON text)
    files: tuple[tuple[str, int, str], ...]

    @classmethod
    def of(cls, dt: Any, root: Path) -> "DeltaRsAnswer":
        """The answer of a loaded ``deltalake.DeltaTable`` of the table at ``root``."""
        from delta_rs_oracle import delta_rs_file_rows

        p, md = dt.protocol(), dt.metadata()

        def feats(f: Any) -> tuple[str, ...] | None:
            return None if f is None else tuple(sorted(f))

        return cls(dt.version(), p.min_reader_version, p.min_writer_version,
                   feats(p.reader_features), feats(p.writer_features), md.id,
                   tuple(md.partition_columns), tuple(sorted(delta_rs_file_rows(dt, root))))

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["files"] = [[_relative(p), s, pv] for p, s, pv in self.files]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any], fixtures_root: Path) -> "DeltaRsAnswer":
        def opt(f: list[str] | None) -> tuple[str, ...] | None:
            return None if f is None else tuple(f)

        files = tuple((_absolute(p, fixtures_root), int(s), pv) for p, s, pv in d["files"])
        return cls(d["version"], d["min_reader_version"], d["min_writer_version"],
                   opt(d["reader_features"]), opt(d["writer_features"]), d["metadata_id"],
                   tuple(d["partition_columns"]), files)


@dataclass(frozen=True)
class DeltaRsRefusal:
    """delta-rs refused to load the table: its error's category and first line."""

    category: str
    reason: str


def _relative(path: str) -> str:
    root = str(FIXTURES_ROOT)
    return ROOT_PLACEHOLDER + path[len(root):] if path.startswith(root + "/") else path


def _absolute(path: str, fixtures_root: Path) -> str:
    if path.startswith(ROOT_PLACEHOLDER):
        return str(fixtures_root) + path[len(ROOT_PLACEHOLDER):]
    return path


def ask_delta_rs(table: str, root: Path | None = None) -> dict[str, Any]:
    """delta-rs's answers for one fixture table now, as the recording holds them: a refusal, or
    the latest version and the older ones (None where delta-rs cannot load that version)."""
    from deltalake import DeltaTable

    from delta_rs_oracle import delta_rs_category

    root = root or FIXTURES_ROOT / table
    try:
        dt = DeltaTable(str(root))
        dt.get_add_actions(flatten=True)
    except Exception as e:  # noqa: BLE001 - any refusal by delta-rs is compared by category
        reason = str(e).splitlines()[0][:160] if str(e) else type(e).__name__
        reason = reason.replace(str(FIXTURES_ROOT), ROOT_PLACEHOLDER)
        return {"table": table, "refusal": asdict(DeltaRsRefusal(delta_rs_category(e), reason))}
    latest = DeltaRsAnswer.of(dt, root)
    versions: dict[str, Any] = {"latest": latest.to_json()}
    for v in older_versions(latest.version):
        try:
            old = DeltaTable(str(root), version=v)
            old.get_add_actions(flatten=True)
            versions[str(v)] = DeltaRsAnswer.of(old, root).to_json()
        except Exception:  # noqa: BLE001 - e.g. the log was cleaned up before v
            versions[str(v)] = None
    return {"table": table, "versions": versions}


# ---- the recording ------------------------------------------------------------------------

def deltalake_version() -> str:
    import deltalake

    return deltalake.__version__


def recording_file(version: str | None = None) -> Path:
    return RECORDING_DIR / f"delta-rs-{version or deltalake_version()}.json"


def record(out: Path | None = None) -> Path:
    """Asks delta-rs for every fixture table and writes the stamped recording."""
    digests = fixture_digests(FIXTURES_ROOT)
    doc = {
        "format": 1,
        "oracle": "deltalake",
        "oracle_version": deltalake_version(),
        "fixtures_digest": combined_digest(digests),
        "tables": digests,
        "answers": {t: ask_delta_rs(t) for t in sorted(digests)},
    }
    out = out or recording_file()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out


def verify_stamp(doc: dict[str, Any], fixtures_root: Path) -> None:
    """Raises RecordingError, naming each table that changed, appeared or vanished, unless the
    fixtures under ``fixtures_root`` are those the recording was made of."""
    present = fixture_digests(fixtures_root)
    if combined_digest(present) == doc["fixtures_digest"]:
        return
    recorded = doc["tables"]
    parts = []
    for what, names in (
        ("changed", [t for t in present if t in recorded and present[t] != recorded[t]]),
        ("not recorded", [t for t in present if t not in recorded]),
        ("gone", [t for t in recorded if t not in present]),
    ):
        if names:
            parts.append(f"{what}: {', '.join(sorted(names))}")
    diff = "; ".join(parts) or "the digest differs"
    raise RecordingError(
        f"the recorded delta-rs answers do not match the fixtures at {fixtures_root} ({diff}): "
        f"{HINT}")


def load(fixtures_root: Path = FIXTURES_ROOT, path: Path | None = None) -> dict[str, Any]:
    """The recording of the running deltalake's answers, checked against the fixtures."""
    path = path or recording_file()
    if not path.is_file():
        raise RecordingError(f"no recording of deltalake {deltalake_version()}'s answers "
                             f"({path.relative_to(REPO_ROOT)}): {HINT}")
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc["oracle_version"] != deltalake_version():
        raise RecordingError(f"the recording holds deltalake {doc['oracle_version']}'s answers, "
                             f"the oracle here is {deltalake_version()}: {HINT}")
    verify_stamp(doc, fixtures_root)
    return doc


def sample_seed() -> int:
    """``TXLOG_ORACLE_SEED``, or the day's number (UTC): reruns on a day re-check the same
    sample, each day checks another (the Scala suites draw theirs the same way)."""
    seed = os.environ.get("TXLOG_ORACLE_SEED")
    if seed:
        return int(seed)
    return (datetime.datetime.now(datetime.timezone.utc).date() - datetime.date(1970, 1, 1)).days


def sample(items: list[str], n: int) -> list[str]:
    return random.Random(sample_seed()).sample(sorted(items), min(n, len(items)))
