"""The result of :meth:`txlog.DeltaLog.repair`.

>>> plan = log.repair()                     # a dry run
>>> plan.actions.show(truncate=False)
>>> r = log.repair(dry_run=False)
>>> r.num_files_removed, r.commit_version
(1, 15)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from ._gateway import call

__all__ = ["RepairResult"]


@dataclass(frozen=True)
class RepairResult:
    """What a repair did, or would do in a dry run.

    ``num_checkpoints_rewritten`` and ``num_checksums_rewritten`` count the checkpoints and
    ``.crc`` files set aside and written again; ``last_checkpoint_rewritten`` says whether
    ``_last_checkpoint`` was rebuilt (or deleted, when no checkpoint is left);
    ``num_files_removed`` / ``size_of_files_removed`` count the files whose data or deletion
    vector file is missing, removed by the ``FSCK`` commit of version ``commit_version``
    (None in a dry run or when there were none); ``num_not_repairable`` counts the faults left
    as they are (version gaps, checkpoints no commits rebuild, size mismatches).
    ``set_aside_dir`` is where the replaced log files went. ``actions`` has one row per action
    (``action``, ``version``, ``file``, ``rule``, ``detail``, ``done``); it is persisted until
    :meth:`unpersist`.
    """

    table_path: str
    dry_run: bool
    num_checkpoints_rewritten: int
    num_checksums_rewritten: int
    last_checkpoint_rewritten: bool
    num_files_removed: int
    size_of_files_removed: int
    num_not_repairable: int
    commit_version: int | None
    set_aside_dir: str | None
    actions: DataFrame = field(repr=False, compare=False)
    _jresult: Any = field(repr=False, compare=False, default=None)
    _facade: Any = field(repr=False, compare=False, default=None)

    @property
    def is_clean(self) -> bool:
        """Whether there was nothing to repair or report."""
        return not (self.num_checkpoints_rewritten or self.num_checksums_rewritten
                    or self.last_checkpoint_rewritten or self.num_files_removed
                    or self.num_not_repairable)

    def unpersist(self) -> None:
        """Releases the persisted :attr:`actions`."""
        if self._jresult is not None:
            call(self._facade.unpersistRepair, self._jresult)

    @classmethod
    def _of(cls, jresult: Any, spark: SparkSession, facade: Any) -> RepairResult:
        doc = json.loads(call(facade.repairSummary, jresult))
        commit = doc.get("commit_version")
        aside = doc.get("set_aside_dir")
        return cls(
            table_path=str(doc["table"]),
            dry_run=bool(doc["dry_run"]),
            num_checkpoints_rewritten=int(doc["num_checkpoints_rewritten"]),
            num_checksums_rewritten=int(doc["num_checksums_rewritten"]),
            last_checkpoint_rewritten=bool(doc["last_checkpoint_rewritten"]),
            num_files_removed=int(doc["num_files_removed"]),
            size_of_files_removed=int(doc["size_of_files_removed"]),
            num_not_repairable=int(doc["num_not_repairable"]),
            commit_version=None if commit is None else int(commit),
            set_aside_dir=None if aside is None else str(aside),
            actions=DataFrame(call(facade.repairActions, jresult), spark),
            _jresult=jresult,
            _facade=facade,
        )
