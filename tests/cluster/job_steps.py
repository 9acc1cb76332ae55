"""The steps the cluster job (cluster_job.py) runs on each table, in order: replay, history,
time travel by version and by timestamp, describe and validate, checkpoints, version checksums,
log compaction, a cached snapshot updated across a small and a large commit, metadata cleanup (a
dry run, then for real), and errors on broken copies of the log."""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from typing import Any

from pyspark.sql import functions as F

import txlog
from txlog.errors import TxlogError

from job_record import Table, error_of, rows_of, short_digest, snapshot_summary

# Files added by the job's commits: a fixed modification time, so both runs write the same.
ADDED_MTIME = 1_700_000_000_000
LARGE_COMMIT_FILES = 10_500  # checked and written by executors (maxDriverBytes 1: test_cluster.py)
# W1's large commit also removes this partition's files (read through the transaction).
W1_REMOVED = "partitionValues_parsed.date = '2024-01-05' AND partitionValues_parsed.part = 1"



def run_table(t: Table) -> None:
    fixture = t.kind == "fixture"
    log = t.step("open", t.log)
    if log is None:
        return
    t.results["open"] = t.normalize(log.table_path)
    t.step("replay", lambda: snapshot_summary(log.snapshot(), t.root, detail=fixture))
    history = t.step("history", lambda: [
        [r.version, r.ms, r.operation] for r in log.history().select(
            "version", F.unix_millis("timestamp").alias("ms"), "operation").orderBy(
            "version").collect()])
    history = history or []
    latest = history[-1][0] if history else 0
    if fixture:
        n = 6 if t.full else 3  # evenly spread over the history, the first and last included
        picked = [history[i * (len(history) - 1) // (n - 1)] for i in range(n)] if history \
            else []
        picked = [h for i, h in enumerate(picked) if h not in picked[:i]]
    else:
        picked = [h for h in history if h[0] in (1001, 1050, latest)]
    travel_versions = sorted({h[0] for h in picked} | ({1000} if not fixture else set()))

    def by_version() -> dict[str, Any]:
        out = {}
        for v in travel_versions:
            try:
                out[str(v)] = short_digest(log.snapshot(version=v), t.root)
            except TxlogError as e:
                out[str(v)] = {"error": error_of(e)}
        return out

    def by_timestamp() -> dict[str, Any]:
        out = {}
        for version, ms, _ in picked:
            for label, at in (("at", ms), ("before", ms - 1)):
                when = datetime.fromtimestamp(at / 1000, timezone.utc)
                try:
                    s = log.snapshot(timestamp=when)
                    out[f"{version}-{label}"] = [s.version, s.num_files, s.size_in_bytes]
                except TxlogError as e:
                    out[f"{version}-{label}"] = {"error": error_of(e)}
        return out

    t.step("time_travel_version", by_version)
    t.step("time_travel_timestamp", by_timestamp)
    if t.full:
        t.step("describe", lambda: describe(log))
        t.step("validate", lambda: [
            [r.version, (r.file or "").rsplit("/", 1)[-1], r.rule, r.severity]
            for r in log.validate().orderBy("version", "file", "rule").collect()])
    checkpoints(t, latest, history)
    checksums(t, latest)
    compaction(t, latest, history)
    commits(t)
    cleanup(t)
    if fixture and t.local_dir:
        broken_logs(t)


def describe(log: txlog.DeltaLog) -> dict[str, Any]:
    d = log.describe()
    # Where the table is and when it was last written differ between the runs' copies.
    for key in ("location", "last_modified"):
        d.pop(key, None)
    d.get("health", {}).pop("checkpoint_age_millis", None)
    return d


def checkpoint_result(r: Any) -> dict[str, Any]:
    return {"version": r.version, "kind": r.kind, "files": sorted(f.rsplit("/", 1)[-1]
                                                                  for f in r.files),
            "sidecars": len(r.sidecars), "num_actions": r.num_actions,
            "num_add_files": r.num_add_files, "num_remove_files": r.num_remove_files,
            "already_existed": r.already_existed}


def checkpoints(t: Table, latest: int, history: list[list[Any]]) -> None:
    def latest_checkpoint() -> dict[str, Any]:
        r = t.log().checkpoint()
        fresh = t.log().snapshot()
        return {"result": checkpoint_result(r), "after": short_digest(fresh, t.root),
                "checkpoint_version": fresh.checkpoint_version}

    t.step("checkpoint", latest_checkpoint)
    earlier = [h[0] for h in history if h[0] < latest]
    if not t.full or not earlier:
        return
    previous = earlier[-1]
    v2 = "v2Checkpoint" in (t.log().snapshot().protocol.writer_features or ())

    def other_kind() -> dict[str, Any]:
        log = t.log()
        if v2:
            r = log.checkpoint(version=previous, kind="v2", format="json", sidecars=False)
        else:
            r = log.checkpoint(version=previous, kind="multipart", parts=2)
        return {"result": checkpoint_result(r),
                "after": short_digest(t.log().snapshot(version=previous), t.root)}

    t.step("checkpoint_other_kind", other_kind)


def checksums(t: Table, latest: int) -> None:
    def write_and_validate() -> dict[str, Any]:
        log = t.log()
        out: dict[str, Any] = {}
        for v in sorted({latest, max(latest - 1, 0)}):
            try:
                out[f"write-{v}"] = log.write_checksum(v).rsplit("/", 1)[-1]
            except TxlogError as e:
                out[f"write-{v}"] = {"error": error_of(e)}
            out[f"validate-{v}"] = rows_of(log.validate_checksum(v))
        return out

    t.step("checksum", write_and_validate)


def compaction(t: Table, latest: int, history: list[list[Any]]) -> None:
    versions = [h[0] for h in history]
    start = 1001 if t.kind == "w1" else max([v for v in versions if v >= latest - 2] or [0])
    if start >= latest:
        return

    def compact() -> dict[str, Any]:
        name = t.log().compact(start, latest).rsplit("/", 1)[-1]
        return {"file": name, "after": short_digest(t.log().snapshot(), t.root)}

    t.step("compaction", compact)


def commit_result(txn: Any, version: int | None) -> dict[str, Any]:
    r = txn.result
    return {"version": version, "committed": r.committed, "attempts": r.attempts,
            "checkpoint_version": r.checkpoint_version,
            "post_commit_problems": r.post_commit_problems,
            "checksum": None if r.checksum is None else r.checksum.rsplit("/", 1)[-1]}


def commits(t: Table) -> None:
    """A cached snapshot, then a small and a large commit through the same log, each followed
    by update() (which reuses the cache) and a fresh replay to compare it with."""
    state: dict[str, Any] = {}

    def cache() -> dict[str, Any]:
        state["log"] = log = t.log()
        snap = log.snapshot().cache()
        return {"version": snap.version, "num_files": snap.num_files,
                "size_in_bytes": snap.size_in_bytes}

    if t.step("cache", cache) is None:
        return
    log: txlog.DeltaLog = state["log"]
    spark = t.spark

    def updated() -> dict[str, Any]:
        u = short_digest(log.update(), t.root)
        fresh = short_digest(t.log().snapshot(), t.root)
        return {"update": u, "fresh": fresh, "agree": u == fresh}

    def small() -> dict[str, Any]:
        txn = log.start_transaction()
        existing = txn.read_files().orderBy("path").limit(2)
        first = existing.select("partitionValues").collect()
        pv = first[0].partitionValues if first else {}
        adds = spark.createDataFrame(
            [(f"cluster-job/small-{i}.parquet", 1000 + i, pv, ADDED_MTIME, True,
              '{"numRecords":10}') for i in range(3)],
            "path string, size long, partitionValues map<string,string>, "
            "modificationTime long, dataChange boolean, stats string")
        txn.add_files(adds).remove_files(existing).set_app_transaction("cluster-job", 1)
        return commit_result(txn, txn.commit("WRITE", {"mode": "Append"}))

    def large() -> dict[str, Any]:
        txn = log.start_transaction()
        pv_rows = txn.read_files().orderBy("path").limit(1).select("partitionValues").collect()
        pv = pv_rows[0].partitionValues if pv_rows else {}
        pv_col = F.create_map(*[F.lit(x) for kv in sorted(pv.items()) for x in kv]) if pv \
            else F.create_map().cast("map<string,string>")
        adds = spark.range(LARGE_COMMIT_FILES).select(
            F.format_string("cluster-job/large-%05d.parquet", "id").alias("path"),
            (F.col("id") + 100).alias("size"),
            pv_col.alias("partitionValues"),
            F.lit(ADDED_MTIME).alias("modificationTime"),
            F.lit(True).alias("dataChange"))
        txn.add_files(adds)
        if t.kind == "w1":
            txn.remove_files(txn.read_files(W1_REMOVED))
        return commit_result(txn, txn.commit("WRITE", {"mode": "Append"}))

    t.step("commit_small", small)
    t.step("update_after_small", updated)
    t.step("commit_large", large)
    t.step("update_after_large", updated)
    t.step("history_after_commits", lambda: [
        [r.version, r.operation, r.isBlindAppend] for r in log.history().select(
            "version", "operation", "isBlindAppend").orderBy("version").collect()][-3:])


def cleanup(t: Table) -> None:
    def candidates(dry_run: bool) -> list[list[Any]]:
        df = t.log().cleanup(retention="0 days", dry_run=dry_run, force=True)
        return sorted([(r.path or "").rsplit("/", 1)[-1], r.kind, r.version, r.deleted]
                      for r in df.select("path", "kind", "version", "deleted").collect())

    t.step("cleanup_dry_run", lambda: candidates(True))
    t.step("cleanup", lambda: candidates(False))
    t.step("replay_after_cleanup", lambda: snapshot_summary(
        t.log().snapshot(), t.root, detail=t.kind == "fixture", with_time=False))


def broken_logs(t: Table) -> None:
    """Errors raised where the log is read -- by tasks on executors when the table's settings
    send reads there -- must reach the driver as the same typed errors, naming the file and
    version: a malformed commit after the latest version, then a checkpoint overwritten with
    bytes that are not parquet. On a copy of the table (read by its local path), so that the
    table itself stays as the job left it."""
    broken = f"{t.local_dir.rstrip('/')}-broken"
    shutil.copytree(t.local_dir, broken)  # keeps modification times
    t.path = broken
    log_dir = os.path.join(broken, "_delta_log")
    bad: list[str] = []

    def malformed_commit() -> Any:
        latest = t.log().snapshot().version
        bad.append(os.path.join(log_dir, f"{latest + 1:020d}.json"))
        with open(bad[0], "w") as f:
            f.write('{"commitInfo":{}}\n{"add": {"path": "x", oops}\n')
        return short_digest(t.log().snapshot(), t.root)

    def corrupt_checkpoint() -> Any:
        for path in bad:
            os.remove(path)
        # The newest classic checkpoint, else the newest V2 checkpoint's newest sidecar.
        names = sorted(n for n in os.listdir(log_dir) if n.endswith(".checkpoint.parquet"))
        if names:
            target, version = os.path.join(log_dir, names[-1]), int(names[-1][:20])
        else:
            sidecars = os.path.join(log_dir, "_sidecars")
            names = sorted((n for n in os.listdir(sidecars) if n.endswith(".parquet") and
                            not n.startswith(".")),
                           key=lambda n: os.path.getmtime(os.path.join(sidecars, n)))
            target, version = os.path.join(sidecars, names[-1]), t.log().snapshot().version
        with open(target, "r+b") as f:
            f.write(b"not parquet at all" * 64)
        return short_digest(t.log().snapshot(version=version), t.root)

    t.step("error_malformed_commit", malformed_commit)
    t.step("error_corrupt_checkpoint", corrupt_checkpoint)
