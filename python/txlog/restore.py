"""The result of :meth:`txlog.DeltaLog.restore`.

>>> r = log.restore(version=3)
>>> r.version, r.num_restored_files, r.num_removed_files
(9, 2, 5)
"""

from __future__ import annotations

from typing import Any

from ._summaries import RestoreResult

__all__ = ["RestoreResult"]




def restore_flags(force: Any, dry_run: Any) -> dict[str, str]:
    """The facade's ``force`` and ``dryRun`` options; TypeError naming the bad argument."""
    for name, value in (("force", force), ("dry_run", dry_run)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return {"force": "true" if force else "false", "dryRun": "true" if dry_run else "false"}
