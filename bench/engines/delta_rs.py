"""delta-rs (the `deltalake` Python package), in process."""

from __future__ import annotations

from datetime import datetime

import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable, QueryBuilder, write_deltalake
from deltalake.exceptions import CommitFailedError, DeltaError
from deltalake.transaction import AddAction

from engines.base import Commit, Counts, Engine, GaveUp, Optimized, Selected, Vacuumed


#: delta-rs's error when its listing of the log, taken while other writers commit, holds a version
#: but not the one before it (a directory read is no snapshot: an entry made during it may or may
#: not be seen). The table is whole; delta-rs does not list again by itself, so W9's writers did
#: stop at it. The harness lists again (RELISTS times at most per commit) and counts it.
GAP = "Expected contiguous commit files, but found gap"
RELISTS = 20


def _counts(table: DeltaTable) -> Counts:
    adds = pa.table(table.get_add_actions())
    return Counts(table.version(), adds.num_rows, pc.sum(adds["size_bytes"]).as_py() or 0)


class DeltaRs(Engine):
    name = "delta-rs"
    #: Its object store's settings for the loads (s3_jobs.py sets them for s3:// tables).
    storage_options: dict[str, str] | None = None

    def load(self, path: str) -> Counts:
        return _counts(DeltaTable(path, storage_options=self.storage_options))

    def load_files(self, path: str) -> Counts:
        # The full add-action list (with sizes) is already what load() counts: delta-rs has no
        # cheaper count of the live files.
        return _counts(DeltaTable(path, storage_options=self.storage_options))

    def open(self, path: str) -> DeltaTable:
        table = DeltaTable(path)
        _counts(table)
        return table

    def update(self, handle: DeltaTable) -> Counts:
        handle.update_incremental()
        return _counts(handle)

    def prepare_add(self, handle: DeltaTable, add: dict) -> AddAction:
        return AddAction(
            add["path"], add["size"], add["partitionValues"], add["modificationTime"],
            add["dataChange"], add["stats"],
        )  # fmt: skip

    def commit(self, handle: DeltaTable, action: AddAction) -> Commit:
        relists = [0]  # the log listed again after GAP, by this commit
        read_version = handle.version()
        while True:
            try:
                handle.update_incremental()  # a commit leaves the table's state where it was
                read_version = handle.version()
                partitions = handle.metadata().partition_columns
                try:
                    handle.create_write_transaction(
                        [action], "append", handle.schema(), partitions
                    )
                except CommitFailedError as e:  # for a blind append: its retries ran out
                    raise GaveUp(str(e)) from e
                # delta-rs returns neither the version it committed nor how many it tried.
                return Commit(read_version, None, None, relists[0])
            except DeltaError as e:
                if GAP not in str(e) or relists[0] >= RELISTS:
                    raise
                # The listing may have failed after the commit landed (delta-rs reads the log
                # again after writing): committing again would add the file twice.
                if self._landed(handle, action.path, relists):
                    return Commit(read_version, None, None, relists[0])

    def _landed(self, handle: DeltaTable, path: str, relists: list[int]) -> bool:
        """Whether the latest version's files hold `path`, the log listed again (counted in
        `relists`) until delta-rs lists it whole; its error when that took RELISTS listings."""
        while True:
            relists[0] += 1
            try:
                handle.update_incremental()
            except DeltaError as e:
                if GAP not in str(e) or relists[0] >= RELISTS:
                    raise  # whether the commit landed is unknown: the run fails
                continue
            return path in pa.table(handle.get_add_actions())["path"].to_pylist()

    def checkpoint(self, path: str) -> None:
        DeltaTable(path).create_checkpoint()

    def time_travel(self, path: str, timestamp: str) -> Counts:
        # Open at version 0 (cheap) rather than the latest, then resolve the timestamp.
        table = DeltaTable(path, version=0)
        table.load_as_version(datetime.fromisoformat(timestamp))
        return _counts(table)

    def plan(self, path: str, scan: dict) -> Selected:
        # file_uris prunes by partition values and by min/max statistics: tuple filters (the
        # partition scan) or a SQL predicate (the data scan). It returns URIs only: no sizes.
        tuples = scan["partition_filters"]
        predicate = [tuple(f) for f in tuples] if tuples else scan["where"]
        return Selected(len(DeltaTable(path).file_uris(file_pruning_predicate=predicate)), None)

    def read_rows(self, path: str, aggregate: list[str]) -> dict:
        # DataFusion through QueryBuilder applies deletion vectors (to_pyarrow_table refuses
        # tables with the deletionVectors reader feature).
        sql = f"SELECT {', '.join(aggregate)} FROM t"
        result = pa.table(QueryBuilder().register("t", DeltaTable(path)).execute(sql).read_all())
        return result.to_pylist()[0]

    def write_input(self, start: int, end: int, slices: int) -> pa.Table:
        import write_data

        return write_data.arrow_table(start, end, slices)  # in memory before timing

    def write(self, path: str, data: pa.Table, mode: str, partition_by: list[str]) -> None:
        write_deltalake(path, data, mode=mode, partition_by=partition_by)

    def vacuum(self, path: str, retention_hours: int, dry_run: bool) -> Vacuumed:
        # full=True: also files the log never named (the default, lite, reads removes only).
        files = DeltaTable(path).vacuum(retention_hours=retention_hours, dry_run=dry_run, full=True)
        return Vacuumed(len(files), lambda: files)

    def optimize(self, path: str) -> Optimized:
        # Its default target size is delta.targetFileSize or 100 MiB; one commit at the end.
        metrics = DeltaTable(path).optimize.compact()
        return Optimized(metrics["numFilesRemoved"], metrics["numFilesAdded"])

    def merge_input(self, rows: int) -> pa.Table:
        import dml_table

        return dml_table.arrow_source(rows)  # in memory before timing

    def delete_rows(self, path: str, predicate: str) -> None:
        DeltaTable(path).delete(predicate)

    def update_rows(self, path: str, predicate: str, assignments: dict[str, str]) -> None:
        DeltaTable(path).update(updates=assignments, predicate=predicate)

    def merge_upsert(
        self, path: str, source: pa.Table, condition: str, source_alias: str, target_alias: str
    ) -> None:
        merge = DeltaTable(path).merge(
            source, condition, source_alias=source_alias, target_alias=target_alias
        )
        merge.when_matched_update_all().when_not_matched_insert_all().execute()
