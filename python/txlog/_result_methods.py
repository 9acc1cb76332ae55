"""The methods of the generated result classes (``_summaries``) that reach back into the JVM:
their DataFrames of rows and the release of what the JVM persisted for them."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, SparkSession

from ._gateway import call, frame


class _PersistedRows:
    """A result whose rows (one DataFrame field) the JVM keeps persisted until released; the
    subclass names that field and the facade's methods for its summary, rows and release."""

    _jresult: Any
    _facade: Any
    _rows_field: str
    _summary_call: str
    _rows_call: str
    _unpersist_call: str

    def unpersist(self) -> None:
        """Releases the persisted rows (:attr:`files` of a vacuum, :attr:`actions` of a
        repair)."""
        if self._jresult is not None:
            call(getattr(self._facade, self._unpersist_call), self._jresult)

    @classmethod
    def _from_jvm(cls, jresult: Any, spark: SparkSession, facade: Any) -> Any:
        rows = frame(call(getattr(facade, cls._rows_call), jresult), spark)
        summary = call(getattr(facade, cls._summary_call), jresult)
        extra = {cls._rows_field: rows, "_jresult": jresult, "_facade": facade}
        return cls._of(summary, **extra)  # type: ignore[attr-defined]


class VacuumMethods(_PersistedRows):
    """Methods of :class:`txlog.VacuumResult`."""

    _rows_field = "files"
    _summary_call = "vacuumSummary"
    _rows_call = "vacuumFiles"
    _unpersist_call = "unpersistVacuum"


class RepairMethods(_PersistedRows):
    """Methods of :class:`txlog.RepairResult`."""

    _rows_field = "actions"
    _summary_call = "repairSummary"
    _rows_call = "repairActions"
    _unpersist_call = "unpersistRepair"
    num_checkpoints_rewritten: int
    num_checksums_rewritten: int
    last_checkpoint_rewritten: bool
    num_files_removed: int
    num_not_repairable: int

    @property
    def is_clean(self) -> bool:
        """Whether there was nothing to repair or report."""
        return not (self.num_checkpoints_rewritten or self.num_checksums_rewritten
                    or self.last_checkpoint_rewritten or self.num_files_removed
                    or self.num_not_repairable)
