"""A local[2] SparkSession for the JVM engines, and its memory figures."""

from __future__ import annotations

from pyspark.sql import SparkSession

from engines.base import Engine, peak_rss_mb

SHUFFLE_PARTITIONS = 8


def builder(app: str, driver_memory: str) -> SparkSession.Builder:
    return (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", str(SHUFFLE_PARTITIONS))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )


class SparkEngine(Engine):
    """Start-up and memory accounting shared by the engines running in a Spark driver."""

    spark: SparkSession

    def session(self, driver_memory: str) -> SparkSession.Builder:
        raise NotImplementedError

    def start(self, driver_memory: str) -> None:
        self.spark = self.session(driver_memory).getOrCreate()
        self.spark.sparkContext.setLogLevel("ERROR")

    def _heap_pools(self) -> list:
        management = self.spark._jvm.java.lang.management.ManagementFactory
        return [
            p for p in management.getMemoryPoolMXBeans() if p.getType().toString() == "Heap memory"
        ]

    def reset_heap_peak(self) -> None:
        for pool in self._heap_pools():
            pool.resetPeakUsage()

    def memory(self) -> dict[str, float | None]:
        jvm_pid = self.spark._jvm.java.lang.ProcessHandle.current().pid()
        heap = sum(p.getPeakUsage().getUsed() for p in self._heap_pools())
        return {
            "python_rss_mb": peak_rss_mb(),
            "jvm_rss_mb": peak_rss_mb(jvm_pid),
            "jvm_heap_mb": heap / 2**20,
        }
