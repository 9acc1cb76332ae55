"""The workloads (W1-W9, W14) at full or smoke scale, as jobs over generated tables."""

from __future__ import annotations

from dataclasses import dataclass

import appends
import contention
import gen_logs
import vacuum_table

W9_TABLE_COMMITS = 10  # W9's table: a W2-shaped table of 10 commits (100 files)


@dataclass(frozen=True)
class Scale:
    w1_files: int  # W1, W3, W5, W8: live files in the checkpoint
    w2_commits: int  # W2, W6, W7: JSON commits of 10 adds
    w4_files: tuple[int, ...]  # W4: the W1 shape, larger
    w9_seconds: int  # W9: how long the writers commit
    w14_files: int  # W14: data files on disk, a quarter of them unreferenced


FULL = Scale(
    w1_files=1_000_000,
    w2_commits=10_000,
    w4_files=(5_000_000, 20_000_000),
    w9_seconds=60,
    w14_files=200_000,
)
SMOKE = Scale(
    w1_files=20_000, w2_commits=300, w4_files=(50_000, 100_000), w9_seconds=10, w14_files=2_000
)


@dataclass(frozen=True)
class Job:
    id: str
    task: str  # a worker.py task
    table: gen_logs.Table
    description: str

    @property
    def files(self) -> int:
        """Live files in the snapshot the job produces (W14: data files on disk)."""
        m = self.table.manifest
        if self.task.startswith("vacuum"):
            return m["num_files"] + m["vacuum"]["num_files"]
        if self.task == "update":
            return m["append"]["expected"]["num_files"]
        if self.task == "time_travel":
            return m["time_travel"]["num_files"]
        return m["num_files"]


def few_runs(job: Job) -> bool:
    """Jobs run once cold and once warm, without warm-up runs (their runs take minutes for
    the peers): W4, W14."""
    return job.id.startswith(("W4", "W14"))


def human(n: int) -> str:
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if n >= size and n % (size // 10) == 0:
            return f"{n / size:g}{unit}"
    return str(n)


def build(scale: Scale, only: list[str] | None = None) -> list[Job]:
    """The jobs in running order (those in `only`, if given), generating or reusing just the
    tables they need."""
    n1, c2 = human(scale.w1_files), human(scale.w2_commits)
    specs = [
        ("W1", "load", "w1", scale.w1_files, f"load: {n1} files in a checkpoint + 100 commits"),
        ("W2", "load", "w2", scale.w2_commits, f"load: {c2} JSON commits, no checkpoint"),
        ("W3", "checkpoint", "w1", scale.w1_files, f"write a checkpoint of the W1 table ({n1})"),
        *(
            (f"W4-{human(n)}", "load", "w1", n, f"load: W1 shape, {human(n)} files")
            for n in scale.w4_files
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
    shapes = {"w1": gen_logs.w1, "w2": gen_logs.w2, "w7": gen_logs.w7, "w14": vacuum_table.w14}
    return [
        Job(job_id, task, shapes[shape](size), description)
        for job_id, task, shape, size, description in specs
        if not only or job_id in only
    ]
