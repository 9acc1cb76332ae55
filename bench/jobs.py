"""The workloads (W1-W22) at full or smoke scale, as jobs over generated tables.

Load workloads have a second measured path, the file list (task `load_files`, job ids
suffixed `-files`); W1, W2, W3 and W7 have a stat-less variant (`-nostats`) beside the default
tables with realistic stats. W16 and W18 load through S3 with a delay on every request
(s3_jobs.py: run.py serves their tables in place). W20-W22 (row-level DML) run on a table
with deletion vectors and, as `-cow` jobs, on the same table without them (copy-on-write)."""

from __future__ import annotations

from dataclasses import dataclass

import appends
import contention
import dml_table
import dv_table
import gen_logs
import golden_tables
import optimize_files
import overwrite_large
import s3_jobs
import scans
import stream_table
import vacuum_table
import write_data

W9_TABLE_COMMITS = 10  # W9's table: a W2-shaped table of 10 commits (100 files)
S3_DELAY_MS = 20.0  # W16, W18: the delay s3_server.py adds to every request
S3_DELAY = f"{S3_DELAY_MS:g} ms"


@dataclass(frozen=True)
class Scale:
    w1_files: int  # W1, W3, W5, W8: live files in the checkpoint
    w2_commits: int  # W2, W6, W7: JSON commits of 10 adds
    w4_files: tuple[int, ...]  # W4: the W1 shape, larger
    w9_seconds: int  # W9: how long the writers commit
    w14_files: int  # W14: data files on disk, a quarter of them unreferenced
    w13_rows: int  # W13: rows of the table with deletion vectors
    w10_rows: int  # W10: rows written
    w19_files: int  # W19: small files OPTIMIZE compacts
    w18_objects: int  # W18: objects in the log (beside a copy of 1,000)
    w17_files: int  # W17: the W1 shape at its largest, with a 2 GiB driver heap
    w20_rows: int  # W20-W22: rows of the DML table
    w23_commits: int  # W23: one-file commits a stream drains


FULL = Scale(
    w1_files=1_000_000,
    w2_commits=10_000,
    w4_files=(5_000_000, 20_000_000),
    w9_seconds=60,
    w14_files=200_000,
    w13_rows=10_000_000,
    w10_rows=10_000_000,
    w19_files=20_000,
    w18_objects=1_000_000,
    w17_files=100_000_000,
    w20_rows=10_000_000,
    w23_commits=10_000,
)
SMOKE = Scale(
    w1_files=20_000, w2_commits=300, w4_files=(50_000, 100_000), w9_seconds=10, w14_files=2_000,
    w13_rows=200_000, w10_rows=200_000, w19_files=2_000, w18_objects=5_000,
    w17_files=200_000, w20_rows=200_000, w23_commits=300,
)


@dataclass(frozen=True)
class Job:
    id: str
    task: str  # a worker.py task
    table: gen_logs.Table
    description: str

    @property
    def files(self) -> int:
        """Live files in the snapshot the job produces (W14: data files on disk; W10: the files
        a Spark engine's timed write adds; W19: the small files OPTIMIZE compacts; W11: the
        files its overwrite removes; W20-W22: the table's files before the DML)."""
        m = self.table.manifest
        if self.task.startswith("vacuum"):
            return m["num_files"] + m["vacuum"]["num_files"]
        if self.task == "update":
            return m["append"]["expected"]["num_files"]
        if self.task.startswith("golden"):
            return len(m["tables"])
        if self.task == "time_travel":
            return m["time_travel"]["num_files"]
        return m["num_files"]


def few_runs(job: Job, engine: str) -> bool:
    """Jobs run once cold and once warm, without warm-up runs (their runs take minutes for
    the peers, W17's for txlog too): W4, W11, W14, W17, and delta-spark's loads through S3
    (W16, W18: more than a minute each on the largest)."""
    return job.id.startswith(("W4", "W11", "W14", "W17")) or (
        engine == "delta-spark" and job.task in s3_jobs.TASKS
    )


def floor_job(job: Job) -> bool:
    """Jobs the floor engine (spark-floor) runs: the counts loads of the W1 shape with stats
    (W1, W4-N) and the checkpoint of the W1 table (W3)."""
    return (job.task == "load" and (job.id == "W1" or job.id.startswith("W4"))) or job.id == "W3"


def human(n: int) -> str:
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if n >= size and n % (size // 10) == 0:
            return f"{n / size:g}{unit}"
    return str(n)


def dml_specs(rows: int) -> list[tuple[str, str, str, int, str]]:
    """W20-W22 on the table with deletion vectors, then their copy-on-write variants (`-cow`):
    row-level DML of a `rows`-row table delta-spark wrote (dml_table.py)."""
    merged, _ = dml_table.merge_shape(rows)
    work = [
        ("W20", "delete_rows", f"DELETE of 0.1% of the rows (`{dml_table.DELETE_WHERE}`)"),
        ("W21", "merge_rows", f"MERGE upsert of {human(merged)} rows, half matched "
         "(`whenMatched updateAll`, `whenNotMatched insertAll`)"),
        ("W22", "update_rows", f"UPDATE of 1% of the rows (`{dml_table.UPDATE_WHERE}`: "
         + ", ".join(f"{c} = {e}" for c, e in dml_table.UPDATE_SET.items()) + ")"),
    ]  # fmt: skip
    table = f"{human(rows)}-row table of {dml_table.files_for(rows)} files delta-spark wrote"
    return [
        (job_id + suffix, task, shape, rows, f"{what} of a {table}, {how}: a fresh copy each run")
        for suffix, shape, how in (("", "w20", "deletion vectors enabled"),
                                   ("-cow", "w20-cow", "without deletion vectors"))
        for job_id, task, what in work
    ]  # fmt: skip


def ids(scale: Scale) -> list[str]:
    """Every job id in running order (the order a run's parts are reported in), without
    generating any table."""
    return [spec[0] for spec in _specs(scale)]


def _specs(scale: Scale) -> list[tuple[str, str, str, int, str]]:
    """(job id, task, table shape, size, description) of every job, in running order."""
    n1, c2 = human(scale.w1_files), human(scale.w2_commits)
    w10 = (f"{human(scale.w10_rows)} rows (10 columns of mixed types and 2 partition columns, "
           f"{write_data.PARTITIONS} partitions; {write_data.SLICES} input partitions, ~"
           f"{write_data.SLICES * write_data.PARTITIONS} files)")  # fmt: skip
    specs = [
        ("W1", "load", "w1", scale.w1_files, f"load: {n1} files in a checkpoint + 100 commits"),
        ("W1-files", "load_files", "w1", scale.w1_files, f"W1 through the file list ({n1})"),
        ("W1-nostats", "load", "w1-nostats", scale.w1_files, f"W1 without stats ({n1})"),
        ("W2", "load", "w2", scale.w2_commits, f"load: {c2} JSON commits, no checkpoint"),
        ("W2-files", "load_files", "w2", scale.w2_commits, f"W2 through the file list ({c2})"),
        ("W2-nostats", "load", "w2-nostats", scale.w2_commits, f"W2 without stats ({c2})"),
        ("W3", "checkpoint", "w1", scale.w1_files, f"write a checkpoint of the W1 table ({n1})"),
        ("W3-nostats", "checkpoint", "w1-nostats", scale.w1_files,
         f"W3 on the W1 table without stats ({n1})"),
        *(
            (f"W4-{human(n)}{suffix}", task, "w1", n, f"load{how}: W1 shape, {human(n)} files")
            for n in scale.w4_files
            for suffix, task, how in (("", "load", ""), ("-files", "load_files", " (file list)"))
        ),
        *(
            (
                f"W4-{human(n)}-checkpoint",
                "checkpoint",
                "w1",
                n,
                f"write a checkpoint of the W4 table ({human(n)} files)",
            )
            for n in scale.w4_files
        ),
        ("W5", "update", "w1", scale.w1_files, "update a cached W1 snapshot after one more commit"),
        ("W6", "time_travel", "w2", scale.w2_commits, "timestamp time travel to the middle of W2"),
        ("W7", "load", "w7", scale.w2_commits, f"load: W2 ({c2} commits) after a txlog checkpoint"),
        ("W7-files", "load_files", "w7", scale.w2_commits, "W7 through the file list"),
        ("W7-nostats", "load", "w7-nostats", scale.w2_commits, "W7 without stats"),
        *(
            (f"W16-{w}", "load_s3", shape, size, f"{w} through S3, {S3_DELAY} a request")
            for w, shape, size in (("W1", "w1", scale.w1_files), ("W2", "w2", scale.w2_commits),
                                   ("W7", "w7", scale.w2_commits))
        ),
        *(
            (job_id, "load_s3", "w18", n, f"load through S3 ({S3_DELAY} a request): "
             f"{human(n)} log objects, a checkpoint of 10k files 100 commits from the end")
            for job_id, n in (("W18", scale.w18_objects), ("W18-1k", 1_000))
        ),
        (
            "W8",
            "commits",
            "w1",
            scale.w1_files,
            f"commit one new file to the W1 table ({n1}): warm = median of "
            f"{appends.W8_COMMITS} commits, cold = the first",
        ),
        (
            "W9",
            "contention",
            "w2",
            W9_TABLE_COMMITS,
            f"{contention.WRITERS} writer processes append one file per commit to one table for "
            f"{scale.w9_seconds} s: warm = seconds per commit (all writers)",
        ),
        *(
            (job_id, task, "w10", scale.w10_rows, f"{what}: a fresh table each run, the input "
             "cached before timing")
            for job_id, task, what in (
                ("W10-append", "write_append", f"append {w10} to a table created untimed with "
                 f"{write_data.EXTRA_ROWS:,} rows"),
                ("W10-overwrite", "write_overwrite", f"overwrite a table holding the same rows "
                 f"(written untimed) with {w10}"),
            )
        ),
        *(
            (
                job_id,
                task,
                "w14",
                scale.w14_files,
                f"VACUUM RETAIN 168 HOURS{dry} of {human(scale.w14_files)} data files on disk, "
                f"{human(scale.w14_files // 4)} of them unreferenced (a fresh copy each run)",
            )
            for job_id, task, dry in (("W14-dry", "vacuum_dry", " DRY RUN"), ("W14", "vacuum", ""))
        ),
    ]
    w17 = f"W1 shape, {human(scale.w17_files)} files, 2 GiB driver heap"
    specs += [
        ("W17", "load", "w1", scale.w17_files, f"load: {w17}"),
        ("W17-files", "load_files", "w1", scale.w17_files, f"load (file list): {w17}"),
        ("W17-checkpoint", "checkpoint", "w1", scale.w17_files, f"write a checkpoint: {w17}"),
    ]
    n11 = human(max(scale.w4_files))
    specs.append((
        "W11", "overwrite_large", "w1", max(scale.w4_files),
        f"overwrite the W4 table ({n11} live files: {n11} removes in one commit) with "
        f"{overwrite_large.ROWS:,} rows in {overwrite_large.PARTS} partitions (a fresh copy each "
        "run)",
    ))  # fmt: skip
    specs += [
        (job_id, task, "w1", scale.w1_files, f"plan a scan of the W1 table ({n1}) with a {what} "
         "filter keeping ~1% of the files (the files selected, none read)")
        for job_id, task, what in (("W12-partition", "plan_partition", "partition"),
                                   ("W12-data", "plan_data", "data (statistics)"))
    ]  # fmt: skip
    specs.append((
        "W13", "read_rows", "w13", scale.w13_rows,
        f"read every row of a {human(scale.w13_rows)}-row table written by delta-spark, deletion "
        "vectors on 30% of its files, aggregated over every column",
    ))  # fmt: skip
    specs += [
        (job_id, task, "w15", 0, f"load each of the fixtures' golden tables in turn{how}: "
         "total and median per table over the tables every engine loads alike")
        for job_id, task, how in (("W15", "golden", ""), ("W15-files", "golden_files",
                                                         " (file list collected)"))
    ]  # fmt: skip
    n19, parts19 = human(scale.w19_files), optimize_files.PARTITIONS
    specs.append((
        "W19", "optimize", "w19", scale.w19_files,
        f"OPTIMIZE (default settings) of {n19} small files delta-spark wrote, "
        f"{human(scale.w19_files * optimize_files.ROWS_PER_FILE)} rows in {parts19} partitions, "
        f"into ~{parts19} (one per partition): a fresh copy each run",
    ))  # fmt: skip
    specs += dml_specs(scale.w20_rows)
    specs.append((
        "W23", "stream_drain", "w23", scale.w23_commits,
        f"a stream draining {human(scale.w23_commits)} commits of one file each from version 0 "
        "(Trigger.AvailableNow, 1000 files a batch) into the noop sink",
    ))  # fmt: skip
    return specs


def build(scale: Scale, only: list[str] | None = None) -> list[Job]:
    """The jobs in running order (those in `only`, if given), generating or reusing just the
    tables they need."""
    shapes = {
        "w1": gen_logs.w1, "w2": gen_logs.w2, "w7": gen_logs.w7, "w14": vacuum_table.w14,
        "w1-nostats": lambda n: gen_logs.w1(n, "none"),
        "w2-nostats": lambda n: gen_logs.w2(n, "none"),
        "w7-nostats": lambda n: gen_logs.w7(n, "none"),
        "w15": lambda _: golden_tables.w15(),
        "w13": dv_table.w13,
        "w10": write_data.w10,
        "w19": optimize_files.w19,
        "w18": gen_logs.w18,
        "w20": dml_table.w20,
        "w20-cow": lambda n: dml_table.w20(n, deletion_vectors=False),
        "w23": stream_table.w23,
    }  # fmt: skip
    tables: dict[tuple[str, int], gen_logs.Table] = {}  # w7 copies afresh: once per build
    chosen = []
    for job_id, task, shape, size, description in _specs(scale):
        if not only or job_id in only:
            if (shape, size) not in tables:
                tables[shape, size] = shapes[shape](size)
            table = tables[shape, size]
            if task.startswith("plan_"):  # the files each scan selects, before any worker
                scan = scans.expected(table.path, table.manifest)[task.removeprefix("plan_")]
                description += (f": `{scan['where']}`, {scan['num_files']:,} of "
                                f"{table.manifest['num_files']:,} files selected")  # fmt: skip
            chosen.append(Job(job_id, task, table, description))
    return chosen
