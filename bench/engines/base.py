"""What every runner provides, and the counts each operation returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Counts:
    """The snapshot an operation produced: its version and its live files' count and size."""

    version: int
    num_files: int
    size_in_bytes: int


@dataclass(frozen=True)
class Commit:
    """One commit: the version the transaction read, the version it committed (None when the
    engine does not say), how many versions it tried (None when the engine does not say) and how
    many times the harness read the log again after the engine's own listing error (delta-rs's
    "found gap", see engines/delta_rs.py; None for engines that never raise it)."""

    read_version: int
    version: int | None
    attempts: int | None
    relists: int | None = None


@dataclass(frozen=True)
class Vacuumed:
    """What a vacuum reported: the number of files it found (dry run) or deleted, and, called
    after timing, their paths (absolute, `file:` URIs or relative to the table); None where the
    engine does not say. `release` drops what the engine kept for them."""

    num_files: int | None
    paths: Callable[[], list[str]] | None
    release: Callable[[], None] = lambda: None


@dataclass(frozen=True)
class Selected:
    """The files a planned scan selected: their count and total size (None where the engine
    does not say)."""

    num_files: int
    size_in_bytes: int | None


@dataclass(frozen=True)
class Optimized:
    """What an OPTIMIZE (compaction) reported: the files it removed and the files it added."""

    num_removed_files: int
    num_added_files: int


class GaveUp(Exception):
    """The engine gave up on a commit: other writers kept winning the race for the next version
    until its retry limit. Nothing was committed."""


class Unavailable(Exception):
    """The engine, or one operation of it, does not exist here. Recorded, not a failure."""


def peak_rss_mb(pid: int | str = "self") -> float:
    """Peak resident set size (VmHWM) of a live process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


class Engine:
    """A runner. Each operation builds what it reports from scratch unless stated, and forces
    the file list to be produced (count and total size of the live files)."""

    name: str

    def start(self, driver_memory: str) -> None:
        """Creates the session (timed separately as start-up)."""

    def load(self, path: str) -> Counts:
        """Loads the latest snapshot, not reusing any earlier load of the table."""
        raise NotImplementedError

    def load_files(self, path: str) -> Counts:
        """Loads the latest snapshot and lists its live files (every add action with its size),
        as a user listing or filtering files does; counts the list."""
        raise NotImplementedError

    def collect_files(self, path: str) -> Counts:
        """Loads the latest snapshot and collects its file list to the caller (every add action,
        every field), as a notebook's `collect()` or `toPandas()` of it does (W15-files); counts
        the rows collected. By default what `load_files` does, for engines whose file list is
        always materialized."""
        return self.load_files(path)

    def open(self, path: str) -> object:
        """Loads and keeps the latest snapshot (untimed set-up for update)."""
        raise NotImplementedError

    def update(self, handle: object) -> Counts:
        """Brings an opened snapshot up to date after new commits."""
        raise NotImplementedError

    def release(self, handle: object) -> None:
        """Drops what open() kept."""

    def checkpoint(self, path: str) -> None:
        """Writes a checkpoint of the latest version."""
        raise NotImplementedError

    def time_travel(self, path: str, timestamp: str) -> Counts:
        """Loads the snapshot in force at an ISO-8601 timestamp."""
        raise NotImplementedError

    def plan(self, path: str, scan: dict) -> Selected:
        """W12: from the table's path (no earlier load reused), the files a query of the latest
        version filtered by `scan` (scans.py: `where`, a SQL condition; `partition_filters`,
        delta-rs's tuples, or None) would read, without reading them."""
        raise NotImplementedError

    def read_rows(self, path: str, aggregate: list[str]) -> dict:
        """W13: reads the latest version's rows from the table's path (deletion vectors
        applied) and returns the SQL select list `aggregate` over them, as a dict."""
        raise NotImplementedError

    def write_input(self, start: int, end: int, slices: int) -> object:
        """W10: the engine's form of the rows with ids [start, end) (write_data.py) in `slices`
        input partitions, built and materialized before timing."""
        raise NotImplementedError

    def write(self, path: str, data: object, mode: str, partition_by: list[str]) -> None:
        """W10: writes write_input()'s rows to the table at `path` as one commit, `mode`
        "append" (creating the table, partitioned by `partition_by`, when there is none) or
        "overwrite" (replacing every row)."""
        raise NotImplementedError

    def prepare_add(self, handle: object, add: dict) -> object:
        """The engine's form of one add action (given as in a commit's JSON, without the `add`
        key) for commit() on an opened table; built before timing."""
        raise NotImplementedError

    def commit(self, handle: object, action: object) -> Commit:
        """Commits a prepared add action to an opened table as a new version, from the engine's
        cached state brought up to date. Raises GaveUp when the engine's retries ran out."""
        raise NotImplementedError

    def vacuum(self, path: str, retention_hours: int, dry_run: bool) -> Vacuumed:
        """VACUUM of the latest snapshot (built from scratch) with the given retention: the
        files it would delete (dry run) or deletes."""
        raise NotImplementedError

    def optimize(self, path: str) -> Optimized:
        """W19: OPTIMIZE (compaction, the engine's default settings) of the latest snapshot,
        built from the table's path, in one commit."""
        raise NotImplementedError

    def merge_input(self, rows: int) -> object:
        """W21: the engine's form of the MERGE source for the DML table of `rows` rows
        (dml_table.py), built and materialized before timing."""
        raise NotImplementedError

    def delete_rows(self, path: str, predicate: str) -> None:
        """W20: DELETE of the rows `predicate` (SQL) matches, from the table's path, in one
        commit."""
        raise NotImplementedError

    def update_rows(self, path: str, predicate: str, assignments: dict[str, str]) -> None:
        """W22: UPDATE of the rows `predicate` matches, `assignments` mapping columns to SQL
        expressions, from the table's path, in one commit."""
        raise NotImplementedError

    def merge_upsert(
        self, path: str, source: object, condition: str, source_alias: str, target_alias: str
    ) -> None:
        """W21: MERGE of merge_input()'s rows (named `source_alias`) into the table (named
        `target_alias`) ON `condition`: WHEN MATCHED UPDATE SET * WHEN NOT MATCHED INSERT *,
        from the table's path, in one commit."""
        raise NotImplementedError

    def stream_drain(self, path: str, checkpoint: str) -> int:
        """W23: the table at `path` read as a stream from version 0, to the end with
        Trigger.AvailableNow (checkpoint at `checkpoint`, the engine's default batch limits),
        into a sink that drops the rows; returns the rows the query read."""
        raise Unavailable(f"{self.name} has no stream source")

    def reset_heap_peak(self) -> None:
        """Starts a new heap-peak measurement (JVM engines)."""

    def memory(self) -> dict[str, float | None]:
        """Peak memory so far: process RSS, and for JVM engines the JVM's RSS and the heap
        peak since reset_heap_peak()."""
        return {"python_rss_mb": peak_rss_mb(), "jvm_rss_mb": None, "jvm_heap_mb": None}
