"""The result of :meth:`txlog.DeltaLog.vacuum`.

>>> r = log.vacuum(retention_hours=168, dry_run=False)
>>> r.num_deleted_files, r.size_in_bytes
(12, 48213)
>>> r.files.where("NOT deleted").show()
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ._summaries import VacuumResult

__all__ = ["VacuumResult"]




def vacuum_options(retention_hours: Any, dry_run: Any, lite: Any, force: Any,
                   allow_unrelated_paths: Any = False) -> dict[str, str]:
    """The facade's options; TypeError/ValueError naming the bad argument."""
    options: dict[str, str] = {}
    if retention_hours is not None:
        if isinstance(retention_hours, bool) or not isinstance(retention_hours, numbers.Real):
            raise TypeError(
                f"retention_hours must be a number, got {type(retention_hours).__name__}")
        hours = float(retention_hours)
        if math.isnan(hours) or math.isinf(hours) or hours < 0:
            raise ValueError(f"retention_hours must be a non-negative number, got {hours}")
        options["retentionHours"] = repr(hours)
    for name, value in (("dry_run", dry_run), ("lite", lite), ("force", force),
                        ("allow_unrelated_paths", allow_unrelated_paths)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    options["dryRun"] = "true" if dry_run else "false"
    options["lite"] = "true" if lite else "false"
    options["force"] = "true" if force else "false"
    options["allowUnrelatedPaths"] = "true" if allow_unrelated_paths else "false"
    return options
