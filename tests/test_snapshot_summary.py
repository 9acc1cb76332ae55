"""A small table's snapshot summary: its counts come with its version in one facade call."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

from txlog import DeltaLog


class _CallsSeen:
    """A facade that records the names of the calls made through it."""

    def __init__(self, facade: object) -> None:
        self._facade = facade
        self.names: list[str] = []

    def __getattr__(self, name: str) -> object:
        self.names.append(name)
        return getattr(self._facade, name)


def test_small_table_summary_carries_its_counts(spark: SparkSession, fixtures: Path) -> None:
    """A table read on the driver (a checkpoint and the commits after it) is summarized in one
    call: its counts, delta-rs's, come with the version."""
    import pyarrow as pa
    from deltalake import DeltaTable

    name = "golden/basic-with-inserts-deletes-checkpoint"
    snap = DeltaLog.for_table(spark, fixtures / name).snapshot()
    seen = _CallsSeen(snap._facade)
    snap._facade = seen
    assert snap.version == 13 and snap.checkpoint_version == 10
    rs = pa.table(DeltaTable(str(fixtures / name)).get_add_actions(flatten=True))
    assert (snap.num_files, snap.size_in_bytes) == (rs.num_rows,
                                                    sum(rs.column("size_bytes").to_pylist()))
    assert seen.names == ["describe"]
