"""A read-only S3 endpoint over local directories, with a delay on every request (issue #33's
W16 and W18): the bench's tables served as they lie on disk, without uploading them, to every
engine's own S3 client (S3A, delta-rs's object store).

It answers what loading a table asks, as S3 does: ListObjectsV2 (prefix, delimiter, start-after,
continuation token, at most 1,000 keys a page, url encoding), GET (with a byte range) and HEAD
of an object. Keys are held sorted, so a page costs the same whatever the number of keys before
it, as on S3 (S3Proxy's in-memory and file system stores sort every key of the bucket at every
listing: a listing of a million objects by pages then takes hours). Requests are not
authenticated, and nothing can be written.

Each request waits `delay_ms` before it is answered (requests in flight wait side by side, as
on a network).

    .venv/bin/python bench/s3_server.py --port 9000 --delay-ms 20 NAME=DIR ...

serves DIR's files as s3://bench/NAME/<path under DIR>.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import email.utils
import hashlib
import os
import socket
import threading
import time
import urllib.parse
from pathlib import Path
from xml.sax.saxutils import escape

BUCKET = "bench"
MAX_KEYS = 1000


class Objects:
    """The objects served: sorted keys, and for each its file, size and modification time."""

    def __init__(self, tables: dict[str, Path]):
        entries: dict[str, tuple[str, int, float]] = {}
        for name, root in tables.items():
            root = root.resolve()
            for d, _, files in os.walk(root):
                for f in files:
                    if f.endswith(".crc") and f.startswith("."):
                        continue  # Hadoop's checksum side files
                    p = os.path.join(d, f)
                    st = os.stat(p)
                    key = f"{name}/{Path(p).relative_to(root).as_posix()}"
                    entries[key] = (p, st.st_size, st.st_mtime)
        self.keys = sorted(entries)
        self.entries = entries

    def page(self, prefix: str, delimiter: str, after: str, limit: int):
        """(keys, common prefixes, the last name returned, truncated) of one listing page."""
        keys: list[str] = []
        prefixes: list[str] = []
        i = bisect.bisect_right(self.keys, max(after, prefix)) if after else \
            bisect.bisect_left(self.keys, prefix)  # fmt: skip
        last = ""
        while i < len(self.keys) and len(keys) + len(prefixes) < limit:
            k = self.keys[i]
            if not k.startswith(prefix):
                break
            rest = k[len(prefix):]
            if delimiter and delimiter in rest:
                cp = prefix + rest[: rest.index(delimiter) + len(delimiter)]
                if cp > after:
                    prefixes.append(cp)
                    last = cp
                # Past every key under this common prefix.
                i = bisect.bisect_left(self.keys, cp[:-1] + chr(ord(cp[-1]) + 1))
                continue
            keys.append(k)
            last = k
            i += 1
        truncated = i < len(self.keys) and self.keys[i].startswith(prefix)
        return keys, prefixes, last, truncated


def http_date(t: float) -> str:
    return email.utils.formatdate(t, usegmt=True)


def iso_date(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))


def etag(key: str, size: int, mtime: float) -> str:
    return '"' + hashlib.md5(f"{key}:{size}:{mtime}".encode()).hexdigest() + '"'


def _error(code: int, name: str) -> tuple[int, dict[str, str], bytes]:
    body = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{name}</Code>'
            f"<Message>{name}</Message></Error>").encode()  # fmt: skip
    return code, {"Content-Type": "application/xml"}, body


def list_page(objects: Objects, q: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    """A ListObjectsV2 (or V1) answer."""
    encode = q.get("encoding-type") == "url"
    prefix, delimiter = q.get("prefix", ""), q.get("delimiter", "")
    limit = max(0, min(int(q.get("max-keys", MAX_KEYS)), MAX_KEYS))
    token = q.get("continuation-token") or q.get("marker")
    after = urllib.parse.unquote(token) if token else q.get("start-after", "")
    keys, prefixes, last, truncated = objects.page(prefix, delimiter, after, limit)

    def text(s: str) -> str:
        return escape(urllib.parse.quote(s, safe="/") if encode else s)

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
           f"<Name>{BUCKET}</Name><Prefix>{text(prefix)}</Prefix>",
           f"<KeyCount>{len(keys) + len(prefixes)}</KeyCount><MaxKeys>{limit}</MaxKeys>",
           f"<IsTruncated>{'true' if truncated else 'false'}</IsTruncated>"]  # fmt: skip
    if delimiter:
        out.append(f"<Delimiter>{text(delimiter)}</Delimiter>")
    if encode:
        out.append("<EncodingType>url</EncodingType>")
    if "start-after" in q:
        out.append(f"<StartAfter>{text(q['start-after'])}</StartAfter>")
    if token:
        out.append(f"<ContinuationToken>{escape(token)}</ContinuationToken>")
    if truncated:
        out.append(f"<NextContinuationToken>{urllib.parse.quote(last, safe='')}"
                   f"</NextContinuationToken><NextMarker>{text(last)}</NextMarker>")  # fmt: skip
    for k in keys:
        _, size, mtime = objects.entries[k]
        out.append(f"<Contents><Key>{text(k)}</Key><LastModified>{iso_date(mtime)}</LastModified>"
                   f"<ETag>{escape(etag(k, size, mtime))}</ETag><Size>{size}</Size>"
                   "<StorageClass>STANDARD</StorageClass></Contents>")  # fmt: skip
    for p in prefixes:
        out.append(f"<CommonPrefixes><Prefix>{text(p)}</Prefix></CommonPrefixes>")
    out.append("</ListBucketResult>")
    return 200, {"Content-Type": "application/xml"}, "".join(out).encode()


class S3Server:
    """The server, on an event loop in a background thread: `endpoint`, and `requests` (how many
    were answered). One event loop rather than a thread per connection: the clients open dozens
    of connections, and a request costs the server a fraction of a millisecond."""

    def __init__(self, tables: dict[str, Path], delay_ms: float = 0.0, port: int = 0):
        self.objects = Objects(tables)
        self.requests = 0
        self._delay = delay_ms / 1000
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(port, ready), daemon=True)
        self._thread.start()
        ready.wait()
        self.endpoint = f"http://127.0.0.1:{self._port}"

    def _run(self, port: int, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", port, backlog=1024)
        )
        self._port = server.sockets[0].getsockname()[1]
        ready.set()
        self._loop.run_forever()
        server.close()
        tasks = asyncio.all_tasks(self._loop)
        for t in tasks:
            t.cancel()
        self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        self._loop.close()

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                length = int(headers.get("content-length", "0") or 0)
                if length:
                    await reader.readexactly(length)  # nothing is written: the body is dropped
                self.requests += 1
                if self._delay:
                    await asyncio.sleep(self._delay)
                await self._answer(writer, method, target, headers)
                if headers.get("connection", "").lower() == "close":
                    return
        except ConnectionError:
            return
        finally:
            writer.close()

    async def _answer(self, writer, method: str, target: str, headers: dict[str, str]) -> None:
        url = urllib.parse.urlsplit(target)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        bucket, _, key = urllib.parse.unquote(url.path).lstrip("/").partition("/")
        head = method == "HEAD"
        file = None
        if method not in ("GET", "HEAD"):
            status, hdrs, body = _error(405, "MethodNotAllowed")
        elif bucket != BUCKET:
            status, hdrs, body = _error(404, "NoSuchBucket")
        elif not key:
            status, hdrs, body = list_page(self.objects, query)
        elif key not in self.objects.entries:
            status, hdrs, body = _error(404, "NoSuchKey")
        else:
            path, size, mtime = self.objects.entries[key]
            start, end, status = 0, size - 1, 200
            rng = headers.get("range", "")
            hdrs = {"Content-Type": "application/octet-stream", "Last-Modified": http_date(mtime),
                    "ETag": etag(key, size, mtime), "Accept-Ranges": "bytes"}  # fmt: skip
            if rng.startswith("bytes="):
                first, _, last = rng[6:].split(",")[0].partition("-")
                if first:
                    start, end = int(first), min(int(last) if last else size - 1, size - 1)
                else:  # the last N bytes
                    start = max(0, size - int(last))
                status = 206
                hdrs["Content-Range"] = f"bytes {start}-{end}/{size}"
            if status == 206 and start >= size:
                status, hdrs, body = _error(416, "InvalidRange")
            else:
                body = b""
                file = (path, start, max(0, end - start + 1))
        reason = {200: "OK", 206: "Partial Content", 404: "Not Found", 405: "Not Allowed",
                  416: "Range Not Satisfiable"}[status]  # fmt: skip
        length = file[2] if file else len(body)
        out = [f"HTTP/1.1 {status} {reason}", f"Content-Length: {length}",
               f"Date: {http_date(time.time())}"]  # fmt: skip
        out += [f"{k}: {v}" for k, v in hdrs.items()]
        writer.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
        if head:
            pass
        elif file is None:
            writer.write(body)
        else:
            path, start, count = file
            with open(path, "rb") as f:
                if count <= 1 << 16:
                    f.seek(start)
                    writer.write(f.read(count))
                else:
                    await writer.drain()
                    await asyncio.get_running_loop().sendfile(writer.transport, f, start, count)
        await writer.drain()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tables", nargs="+", help="NAME=DIR")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    args = parser.parse_args()
    tables = {n: Path(d) for n, d in (t.split("=", 1) for t in args.tables)}
    server = S3Server(tables, args.delay_ms, args.port)
    print(f"serving {len(server.objects.keys):,} objects at {server.endpoint}/{BUCKET}",
          flush=True)  # fmt: skip
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.close()


if __name__ == "__main__":
    main()
