#!/usr/bin/env python3
"""A small S3-compatible stub server for hudi-c's object-store tests.

Loopback only, in memory, bounded (object and total sizes, lifetime, idle
time). It speaks just enough of S3's REST API, path-style
(/bucket/key), for the s3:// and gs:// backends: GET (with Range), HEAD,
PUT (with If-None-Match: * or x-goog-if-generation-match: 0 for
create-only, and x-amz-copy-source / x-goog-copy-source copies), DELETE,
ListObjectsV2 (prefix, delimiter, max-keys, continuation-token) and
DeleteObjects. Signatures are not verified, but a request without an
AWS4-HMAC-SHA256 Authorization header is refused (403).

Fault injection, for retry tests: POST /__fault with a JSON body
  {"kind": "503" | "500" | "429" | "403" | "drop" | "truncate",
   "count": N, "method": "GET" (optional), "match": "key substring" (optional)}
queues a fault that hits the next N matching requests: an error status with
an S3 XML error body, a connection closed without a response ("drop"), or
a response whose body stops halfway ("truncate"). GET /__stats returns
request counts; POST /__reset clears faults, counts and objects.
"""
import argparse
import email.utils
import hashlib
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape

MAX_OBJECT = 64 << 20
MAX_TOTAL = 512 << 20

lock = threading.Lock()
objects = {}  # (bucket, key) -> (bytes, mtime, generation)
faults = []   # dicts: kind, count, method, match
stats = {"requests": 0, "faults": 0}
last_request = [time.time()]
generation = [0]


def xml_error(code, message):
    return ('<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message>'
            '</Error>' % (code, escape(message))).encode()


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle on, the body waits for the client's
    # delayed ACK of the headers (~40 ms a request on Linux, most of a fault test's time).
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet
        pass

    # ---- plumbing ----
    def split(self):
        u = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
        parts = u.path.lstrip("/").split("/", 1)
        bucket = urllib.parse.unquote(parts[0])
        key = urllib.parse.unquote(parts[1]) if len(parts) > 1 else ""
        return bucket, key, q

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n > MAX_OBJECT:
            raise ValueError("body too large")
        return self.rfile.read(n) if n else b""

    def send(self, status, body=b"", headers=None, head=False):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head and body:
            self.wfile.write(body)

    def error(self, status, code, message):
        self.send(status, xml_error(code, message), {"Content-Type": "application/xml"},
                  head=self.command == "HEAD")

    def take_fault(self, key):
        with lock:
            for f in faults:
                if f.get("method") and f["method"] != self.command:
                    continue
                if f.get("match") and f["match"] not in key:
                    continue
                f["count"] -= 1
                if f["count"] <= 0:
                    faults.remove(f)
                stats["faults"] += 1
                return f["kind"]
        return None

    def handle_one(self):
        last_request[0] = time.time()
        if self.client_address[0] != "127.0.0.1":
            self.close_connection = True
            return
        u = urllib.parse.urlsplit(self.path)
        if u.path.startswith("/__"):
            return self.control(u.path)
        with lock:
            stats["requests"] += 1
            stats[self.command] = stats.get(self.command, 0) + 1
        body = self.body()
        bucket, key, q = self.split()
        kind = self.take_fault(key)
        if kind == "drop":
            self.close_connection = True
            return
        if kind in ("500", "503", "429", "403"):
            code = {"500": "InternalError", "503": "SlowDown", "429": "TooManyRequests",
                    "403": "AccessDenied"}[kind]
            return self.error(int(kind), code, "injected fault")
        if not self.headers.get("Authorization", "").startswith("AWS4-HMAC-SHA256 "):
            return self.error(403, "AccessDenied", "request is not signed")
        self.dispatch(bucket, key, q, body, truncate=kind == "truncate")

    def control(self, path):
        if path == "/__fault" and self.command == "POST":
            f = json.loads(self.body() or b"{}")
            f["count"] = int(f.get("count", 1))
            with lock:
                faults.append(f)
            return self.send(200, b"{}")
        if path == "/__stats":
            with lock:
                return self.send(200, json.dumps(stats).encode())
        if path == "/__reset" and self.command == "POST":
            with lock:
                faults.clear()
                objects.clear()
                for k in list(stats):
                    stats[k] = 0
            return self.send(200, b"{}")
        return self.send(404)

    # ---- S3 ----
    def dispatch(self, bucket, key, q, body, truncate):
        m = self.command
        if m == "GET" and not key and q.get("list-type") == "2":
            return self.list_v2(bucket, q)
        if m == "POST" and not key and "delete" in q:
            return self.delete_objects(bucket, body)
        if m in ("GET", "HEAD"):
            return self.get(bucket, key, truncate)
        if m == "PUT":
            return self.put(bucket, key, body)
        if m == "DELETE":
            with lock:
                objects.pop((bucket, key), None)
            return self.send(204)
        return self.error(501, "NotImplemented", "%s is not supported by the stub" % m)

    def get(self, bucket, key, truncate):
        with lock:
            obj = objects.get((bucket, key))
        head = self.command == "HEAD"
        if obj is None:
            return self.error(404, "NoSuchKey", "The specified key does not exist.")
        data, mtime, gen = obj
        hdrs = {"Last-Modified": email.utils.formatdate(mtime, usegmt=True),
                "ETag": '"%s"' % hashlib.md5(data).hexdigest(), "x-goog-generation": str(gen)}
        status, out = 200, data
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            a, b = rng[6:].split("-")
            a, b = int(a), min(int(b), len(data) - 1)
            if a >= len(data):
                return self.error(416, "InvalidRange", "The requested range is not satisfiable")
            status, out = 206, data[a:b + 1]
            hdrs["Content-Range"] = "bytes %d-%d/%d" % (a, b, len(data))
        if truncate and not head:
            self.send_response(status)
            for k, v in hdrs.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out[: len(out) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send(status, out, hdrs, head=head)

    def put(self, bucket, key, body):
        src = self.headers.get("x-amz-copy-source") or self.headers.get("x-goog-copy-source")
        create_only = (self.headers.get("If-None-Match") == "*"
                       or self.headers.get("x-goog-if-generation-match") == "0")
        with lock:
            if src:
                sb, _, sk = urllib.parse.unquote(src).lstrip("/").partition("/")
                got = objects.get((sb, sk))
                if got is None:
                    return self.error(404, "NoSuchKey", "copy source does not exist")
                body = got[0]
            if create_only and (bucket, key) in objects:
                return self.error(412, "PreconditionFailed",
                                  "At least one of the pre-conditions you specified did not hold")
            total = sum(len(v[0]) for v in objects.values())
            if total + len(body) > MAX_TOTAL:
                return self.error(507, "InsufficientStorage", "stub is full")
            generation[0] += 1
            objects[(bucket, key)] = (body, time.time(), generation[0])
        etag = '"%s"' % hashlib.md5(body).hexdigest()
        if src:
            return self.send(200, ("<CopyObjectResult><ETag>%s</ETag></CopyObjectResult>" % etag).encode())
        self.send(200, b"", {"ETag": etag})

    def list_v2(self, bucket, q):
        prefix, delim = q.get("prefix", ""), q.get("delimiter", "")
        max_keys = max(1, min(1000, int(q.get("max-keys", "1000"))))
        after = q.get("continuation-token", "")
        with lock:
            keys = sorted((k, v) for (b, k), v in objects.items() if b == bucket and k.startswith(prefix))
        entries, seen_prefixes = [], set()
        for k, v in keys:
            if delim:
                i = k.find(delim, len(prefix))
                if i >= 0:
                    p = k[: i + 1]
                    if p not in seen_prefixes:
                        seen_prefixes.add(p)
                        entries.append((p, None))
                    continue
            entries.append((k, v))
        entries = [e for e in entries if e[0] > after]
        page, more = entries[:max_keys], len(entries) > max_keys
        out = ['<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>%s</Name>'
               '<Prefix>%s</Prefix><KeyCount>%d</KeyCount><MaxKeys>%d</MaxKeys><IsTruncated>%s</IsTruncated>'
               % (escape(bucket), escape(prefix), len(page), max_keys, "true" if more else "false")]
        for k, v in page:
            if v is None:
                out.append("<CommonPrefixes><Prefix>%s</Prefix></CommonPrefixes>" % escape(k))
            else:
                out.append("<Contents><Key>%s</Key><LastModified>%s</LastModified><Size>%d</Size></Contents>"
                           % (escape(k), iso(v[1]), len(v[0])))
        if more:
            out.append("<NextContinuationToken>%s</NextContinuationToken>" % escape(page[-1][0]))
        out.append("</ListBucketResult>")
        self.send(200, "".join(out).encode(), {"Content-Type": "application/xml"})

    def delete_objects(self, bucket, body):
        import xml.etree.ElementTree as ET
        root = ET.fromstring(body)
        with lock:
            for k in root.iter():
                if k.tag.endswith("Key"):
                    objects.pop((bucket, k.text or ""), None)
        self.send(200, b'<?xml version="1.0" encoding="UTF-8"?><DeleteResult></DeleteResult>')

    do_GET = do_HEAD = do_PUT = do_DELETE = do_POST = handle_one


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--idle-exit", type=float, default=120, help="exit after this many idle seconds")
    ap.add_argument("--lifetime", type=float, default=1800, help="exit after this many seconds")
    args = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.daemon_threads = True
    print("s3stub listening on 127.0.0.1:%d" % srv.server_address[1], flush=True)
    start = time.time()

    def watchdog():
        while True:
            time.sleep(0.5)
            now = time.time()
            if now - last_request[0] > args.idle_exit or now - start > args.lifetime:
                srv.shutdown()
                return

    threading.Thread(target=watchdog, daemon=True).start()
    srv.serve_forever()
    srv.server_close()


if __name__ == "__main__":
    main()
