"""The stream of tests/test_stream_faults.py: txlog streams the table at argv[1] into a txlog
sink at argv[2] (checkpoint argv[3]), a micro-batch a second of at most 3 files, until killed."""

from __future__ import annotations

import sys

import sessions

import txlog


def main() -> None:
    source, sink, checkpoint = sys.argv[1:4]
    builder = sessions.local("txlog-stream-faults-copy", 2)
    spark = txlog.configure_spark(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    query = (
        spark.readStream.format("txlog")
        .option("maxFilesPerTrigger", 3)
        .load(source)
        .writeStream.format("txlog")
        .option("checkpointLocation", checkpoint)
        .trigger(processingTime="1 second")
        .start(sink)
    )
    query.awaitTermination()


if __name__ == "__main__":
    main()
