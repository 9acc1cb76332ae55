"""The result of :meth:`txlog.DeltaLog.vacuum`.

>>> r = log.vacuum(retention_hours=168, dry_run=False)
>>> r.num_deleted_files, r.size_in_bytes
(12, 48213)
>>> r.files.where("NOT deleted").show()
"""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from ._gateway import call

__all__ = ["VacuumResult"]


@dataclass(frozen=True)
class VacuumResult:
    """What a vacuum found, and deleted unless it was a dry run.

    ``mode`` is ``"full"`` (the table directory was listed) or ``"lite"`` (the log's remove
    actions were read). ``num_files`` and ``size_in_bytes`` count the files and empty
    directories to delete; ``num_deleted_files`` those deleted (0 in a dry run) and
    ``num_failed_deletes`` those the storage refused to delete (their ``deleted`` is false).
    ``num_skipped_paths`` counts paths in the log vacuum left alone (outside the table root,
    unresolvable, or in a hidden directory), ``skipped_path_examples`` shows up to 10.
    ``start_commit`` and ``end_commit`` are the versions of the ``VACUUM START`` and
    ``VACUUM END`` commits (None in a dry run). ``files`` has one row per file or directory:
    ``path`` relative to the table root (unescaped), ``size``, ``isDirectory``, ``deleted``;
    it is persisted until :meth:`unpersist`.
    """

    table_path: str
    mode: str
    dry_run: bool
    retention_hours: float
    delete_before: int
    num_files: int
    size_in_bytes: int
    num_deleted_files: int
    num_failed_deletes: int
    num_vacuumed_directories: int
    num_skipped_paths: int
    skipped_path_examples: list[str]
    start_commit: int | None
    end_commit: int | None
    problems: list[str]
    files: DataFrame = field(repr=False, compare=False)
    _jresult: Any = field(repr=False, compare=False, default=None)
    _facade: Any = field(repr=False, compare=False, default=None)

    def unpersist(self) -> None:
        """Releases the persisted :attr:`files`."""
        if self._jresult is not None:
            call(self._facade.unpersistVacuum, self._jresult)

    @classmethod
    def _of(cls, jresult: Any, spark: SparkSession, facade: Any) -> VacuumResult:
        doc = json.loads(call(facade.vacuumSummary, jresult))

        def opt(key: str) -> int | None:
            return None if doc.get(key) is None else int(doc[key])

        return cls(
            table_path=str(doc["table"]),
            mode=str(doc["mode"]),
            dry_run=bool(doc["dry_run"]),
            retention_hours=float(doc["retention_hours"]),
            delete_before=int(doc["delete_before"]),
            num_files=int(doc["num_files"]),
            size_in_bytes=int(doc["size_in_bytes"]),
            num_deleted_files=int(doc["num_deleted_files"]),
            num_failed_deletes=int(doc["num_failed_deletes"]),
            num_vacuumed_directories=int(doc["num_vacuumed_directories"]),
            num_skipped_paths=int(doc["num_skipped_paths"]),
            skipped_path_examples=[str(x) for x in doc["skipped_path_examples"]],
            start_commit=opt("start_commit"),
            end_commit=opt("end_commit"),
            problems=[str(x) for x in doc["problems"]],
            files=DataFrame(call(facade.vacuumFiles, jresult), spark),
            _jresult=jresult,
            _facade=facade,
        )


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
