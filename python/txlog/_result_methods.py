"""The methods of the generated result classes (``_summaries``) that reach back into the JVM:
their DataFrames of rows and the release of what the JVM persisted for them."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, SparkSession

from ._gateway import call


class VacuumMethods:
    """Methods of :class:`txlog.VacuumResult`."""

    _jresult: Any
    _facade: Any

    def unpersist(self) -> None:
        """Releases the persisted :attr:`files`."""
        if self._jresult is not None:
            call(self._facade.unpersistVacuum, self._jresult)

    @classmethod
    def _from_jvm(cls, jresult: Any, spark: SparkSession, facade: Any) -> Any:
        files = DataFrame(call(facade.vacuumFiles, jresult), spark)
        summary = call(facade.vacuumSummary, jresult)
        return cls._of(summary, files=files, _jresult=jresult, _facade=facade)  # type: ignore


class RepairMethods:
    """Methods of :class:`txlog.RepairResult`."""

    _jresult: Any
    _facade: Any
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

    def unpersist(self) -> None:
        """Releases the persisted :attr:`actions`."""
        if self._jresult is not None:
            call(self._facade.unpersistRepair, self._jresult)

    @classmethod
    def _from_jvm(cls, jresult: Any, spark: SparkSession, facade: Any) -> Any:
        actions = DataFrame(call(facade.repairActions, jresult), spark)
        summary = call(facade.repairSummary, jresult)
        return cls._of(summary, actions=actions, _jresult=jresult, _facade=facade)  # type: ignore
