"""The result of :meth:`txlog.DeltaLog.restore`.

>>> r = log.restore(version=3)
>>> r.version, r.num_restored_files, r.num_removed_files
(9, 2, 5)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["RestoreResult"]


@dataclass(frozen=True)
class RestoreResult:
    """What a restore did, with delta-spark's RESTORE metrics.

    ``restored_version`` is the version the table was restored to (the one asked for, or the
    one the timestamp resolved to); ``read_version`` the latest version when it started;
    ``version`` the version of the ``RESTORE`` commit (None in a dry run, or when the table
    already was at ``restored_version``). ``num_restored_files`` / ``restored_files_size``
    count the files added back, ``num_removed_files`` / ``removed_files_size`` those removed;
    ``num_of_files_after_restore`` / ``table_size_after_restore`` describe the restored
    version.
    """

    table_path: str
    dry_run: bool
    restored_version: int
    read_version: int
    version: int | None
    table_size_after_restore: int
    num_of_files_after_restore: int
    num_removed_files: int
    num_restored_files: int
    removed_files_size: int
    restored_files_size: int

    @classmethod
    def _of(cls, summary: str) -> RestoreResult:
        doc = json.loads(summary)
        return cls(
            table_path=str(doc["table"]),
            dry_run=bool(doc["dry_run"]),
            restored_version=int(doc["restored_version"]),
            read_version=int(doc["read_version"]),
            version=None if doc.get("version") is None else int(doc["version"]),
            table_size_after_restore=int(doc["table_size_after_restore"]),
            num_of_files_after_restore=int(doc["num_of_files_after_restore"]),
            num_removed_files=int(doc["num_removed_files"]),
            num_restored_files=int(doc["num_restored_files"]),
            removed_files_size=int(doc["removed_files_size"]),
            restored_files_size=int(doc["restored_files_size"]),
        )


def restore_flags(force: Any, dry_run: Any) -> dict[str, str]:
    """The facade's ``force`` and ``dryRun`` options; TypeError naming the bad argument."""
    for name, value in (("force", force), ("dry_run", dry_run)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return {"force": "true" if force else "false", "dryRun": "true" if dry_run else "false"}
