"""The result of :meth:`txlog.DeltaLog.repair`.

>>> plan = log.repair()                     # a dry run
>>> plan.actions.show(truncate=False)
>>> r = log.repair(dry_run=False)
>>> r.num_files_removed, r.commit_version
(1, 15)
"""

from __future__ import annotations

from ._summaries import RepairResult

__all__ = ["RepairResult"]

