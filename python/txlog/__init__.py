"""txlog: a Spark-native implementation of the Delta Lake transaction log protocol, for PySpark.

>>> from pyspark.sql import SparkSession
>>> import txlog
>>> spark = txlog.configure_spark(SparkSession.builder.master("local[2]")).getOrCreate()
>>> snap = txlog.DeltaLog.for_table(spark, "/data/events").snapshot()
>>> snap.version, snap.num_files
>>> txlog.write(spark.range(10), "/data/t", mode="append").version
"""

from __future__ import annotations

from . import errors
from ._spark import configure_spark, connect_server_settings, spark_settings
from ._version import __version__
from .delta_log import CheckpointResult, DeltaLog, create_table
from .merge import MergeBuilder, MergeResult, UpdateResult
from .repair import RepairResult
from .restore import RestoreResult
from .snapshot import Metadata, Protocol, Snapshot
from .transaction import CommitResult, Transaction
from .vacuum import VacuumResult
from .write import DeleteResult, OptimizeResult, WriteResult, write
from ._gateway import install_task_errors as _install_task_errors

_install_task_errors()  # errors of txlog's Spark tasks reach Python as txlog.errors classes

__all__ = [
    "configure_spark",
    "connect_server_settings",
    "spark_settings",
    "DeltaLog",
    "CheckpointResult",
    "VacuumResult",
    "RestoreResult",
    "RepairResult",
    "Transaction",
    "CommitResult",
    "create_table",
    "write",
    "WriteResult",
    "DeleteResult",
    "UpdateResult",
    "MergeBuilder",
    "MergeResult",
    "OptimizeResult",
    "Snapshot",
    "Protocol",
    "Metadata",
    "errors",
    "__version__",
]
