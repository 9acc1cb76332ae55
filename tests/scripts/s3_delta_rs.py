"""delta-rs on a local S3 server, for the S3 process race (S3ProcessRaceSuite; project venv).

    s3_delta_rs.py append URI N     N appends of one row each, racing whoever else writes URI
    s3_delta_rs.py versions URI     prints one JSON object: {"<version>": <number of files>, ...}
                                    for every version delta-rs reads, 0 to the latest

The server is named by the environment: TXLOG_S3_ENDPOINT, TXLOG_S3_ACCESS_KEY,
TXLOG_S3_SECRET_KEY. delta-rs publishes its commits with a conditional PUT (`If-None-Match: *`,
its `conditional_put=etag` option), so it needs no lock to race other writers.
"""

from __future__ import annotations

import json
import os
import sys

import deltalake
import pyarrow as pa


def options() -> dict[str, str]:
    return {
        "AWS_ENDPOINT_URL": os.environ["TXLOG_S3_ENDPOINT"],
        "AWS_ACCESS_KEY_ID": os.environ["TXLOG_S3_ACCESS_KEY"],
        "AWS_SECRET_ACCESS_KEY": os.environ["TXLOG_S3_SECRET_KEY"],
        "AWS_REGION": "us-east-1",
        "AWS_ALLOW_HTTP": "true",
        "conditional_put": "etag",
    }


def append(uri: str, n: int) -> None:
    for i in range(n):
        data = pa.table({"id": pa.array([i], pa.int64()), "part": pa.array(["rs"])})
        deltalake.write_deltalake(uri, data, mode="append", storage_options=options())


def versions(uri: str) -> None:
    latest = deltalake.DeltaTable(uri, storage_options=options()).version()
    out = {}
    for v in range(latest + 1):
        dt = deltalake.DeltaTable(uri, version=v, storage_options=options())
        out[str(v)] = len(dt.file_uris())
    json.dump(out, sys.stdout)


def main(argv: list[str]) -> int:
    if argv[0] == "append":
        append(argv[1], int(argv[2]))
    elif argv[0] == "versions":
        versions(argv[1])
    else:
        raise SystemExit(f"unknown command {argv[0]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
