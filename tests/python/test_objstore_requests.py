"""How many requests an upsert, a delete and a snapshot read make against an object store.

Each operation on a small MOR table with the record index (two partitions, one file group each) runs
against moto's S3 server with HUDI_OBJSTORE_TRACE set: our HTTP client then appends one line per
request ("METHOD STATUS /bucket/key?query") to a file, which the test sorts into kinds. The same
operations run on local disk, and both tables must read back the same rows (the caches that save
the requests must never serve stale bytes).

The bounds are what each operation needs, item by item (needed_write/needed_read), not the counts the code
happened to make when this was written; the metadata table is opened once per write (one handle
for the file listing, the record index, the metadata writer and the services, mdt_reader.h) and
refreshed once after the write's own metadata deltacommit (its timeline LIST and file LIST), which
is counted separately and named; adding any other repeat fails it.
"""

from __future__ import annotations

import collections
import os
import re
import time
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiTable
from test_objstore_tables import BUCKET, _helper, batch, moto, s3_options  # noqa: F401  (moto: fixture)

NO_AUTO = {"hoodie.clean.automatic": "false", "hoodie.compact.inline": "false"}


def kind_of(line: str, prefix: str) -> str:
    method, status, target = line.split(" ", 2)
    path, _, query = target.split(" ", 1)[0].partition("?")  # then the bytes down and up
    if "list-type=2" in query:
        m = re.search(r"prefix=([^&]*)", query)
        listed = (m[1] if m else "").replace("%2F", "/").replace("%3D", "=")
        return "LIST " + listed[len(prefix):]
    key = path.replace("%3D", "=")[len(f"/{BUCKET}/{prefix}"):]
    return f"{method} {key}" + (f"?{query.split('=')[0]}" if query else "")


class Trace:
    def __init__(self, path: Path, prefix: str):
        self.path, self.prefix = path, prefix

    def run(self, fn):
        if self.path.exists():
            self.path.unlink()
        os.environ["HUDI_OBJSTORE_TRACE"] = str(self.path)
        try:
            out = fn()
        finally:
            del os.environ["HUDI_OBJSTORE_TRACE"]
        lines = self.path.read_text().splitlines() if self.path.exists() else []
        # An attempt that failed in transport or with a 5xx is retried: the test counts requests,
        # not the loopback server's hiccups under load.
        lines = [ln for ln in lines if 0 < int(ln.split(" ", 2)[1]) < 500]
        return out, [kind_of(ln, self.prefix) for ln in lines]


def count(kinds, pattern: str) -> int:
    rx = re.compile(pattern)
    return sum(1 for k in kinds if rx.fullmatch(k))


def rows(batches) -> list:
    t = pa.Table.from_batches(batches)
    return sorted((r["id"], r["p"], r["ts"], r["v"]) for r in t.select(["id", "p", "ts", "v"]).to_pylist())


def mdt_logs(local: str) -> tuple:
    """(log files in the metadata table's files partition, most log files in one record-index
    shard), from the local twin, whose layout the object-store table shares."""
    base = Path(local) / ".hoodie" / "metadata"
    files = [f for f in os.listdir(base / "files") if ".log." in f]
    per_shard = collections.Counter(f.split("_")[0] for f in os.listdir(base / "record_index") if ".log." in f)
    return len(files), max(per_shard.values(), default=0)


def needed_write(local: str, n_keys: int, partitions: int) -> dict:
    """What one commit needs, item by item (MOR, record index, one file group per partition)."""
    files_logs, shard_logs = mdt_logs(local)
    return {
        "GET hoodie.properties (open)": 1,
        "LIST timeline: open, before the lock, after the lock, after our commit": 4,
        "PUT + DELETE lock": 2,
        "PUT + DELETE heartbeat": 2,
        "GET the last completed instant (schema)": 1,
        "metadata table: GET hoodie.properties, LIST timeline, LIST files": 3,
        "metadata table: its timeline LIST for failed-write rollback and before its commit": 2,
        "metadata table: LIST record_index shards for the writer": 1,
        # Their sizes come with the metadata table's file listing: no HEADs.
        "files partition: HFile GET, GET per log file": 1 + files_logs,
        "record index: per touched shard, GET per log file": min(n_keys, 10) * shard_logs,
        "timeline PUTs: requested, inflight, completed": 3,
        "per partition: marker PUT, .hoodie_partition_metadata HEAD, data PUT": 3 * partitions,
        "base file for the merge: HEAD + GET": 2,
        "metadata commit: 3 instant PUTs, files log PUT, record-index log PUT per touched shard": 4 + min(n_keys, 10),
        "marker directory: LIST + batch DELETE": 2,
    }


def needed_read(local: str, slices: int) -> dict:
    files_logs, _ = mdt_logs(local)
    return {
        "GET hoodie.properties, LIST timeline, GET last instant (schema)": 3,
        "metadata table: GET hoodie.properties, LIST timeline, LIST files": 3,
        "files partition: HFile GET, GET per log file": 1 + files_logs,
        "per file slice: base HEAD + GET, log HEAD + GET (sizes not listed)": 4 * slices,
    }


# The write's metadata-table handle is refreshed after its own deltacommit for the metadata clean
# and compaction checks: a timeline LIST and a file LIST (no hoodie.properties GET).
MDT_REOPENS = 2


def show(kinds) -> str:
    return "\n".join(f"{v:3d} {k}" for k, v in sorted(collections.Counter(
        re.sub(r"\d{17}", "T", k) for k in kinds).items()))


def check_common(kinds, label):
    # Existence checks that a conditional PUT or a blind DELETE covers.
    assert count(kinds, r"HEAD \.hoodie/(lock|\.heartbeat/.*|\.temp/.*)") == 0, (label, kinds)
    assert count(kinds, r"HEAD \.hoodie/metadata/\.hoodie/hoodie\.properties") == 0, (label, kinds)
    # A completed instant is immutable: fetched at most once per operation.
    c = collections.Counter(k for k in kinds if re.fullmatch(r"GET \.hoodie/timeline/\d+_\d+\.\w+", k))
    assert all(v == 1 for v in c.values()), (label, c)


@pytest.mark.parametrize("kind", ["mor"])
def test_requests_per_operation_are_bounded(moto, kind, tmp_path):  # noqa: F811
    prefix = f"requests-{kind}-{os.getpid()}-{time.time_ns()}/t/"
    uri = f"s3://{BUCKET}/{prefix}".rstrip("/")
    opts = {k: v for k, v in s3_options(moto).items() if k not in ("list_max_keys", "multipart_threshold")}
    local = str(tmp_path / "local" / "t")
    trace = Trace(tmp_path / "trace", prefix)
    ids = list(range(60))
    first = batch(ids, [1] * 60, ["a" if i % 3 else "b" for i in ids], [i * 10 for i in ids])
    up = batch([5, 6, 100], [2, 2, 2], ["a", "b", "a"], [1, 2, 3])
    for u, o in ((uri, opts), (local, {})):
        HudiTable.create(u, "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=True, storage_options=o)
        HudiTable(u, o).append(first, NO_AUTO)

    bound = sum(needed_write(local, 3, 2).values()) + MDT_REOPENS
    _, kinds = trace.run(lambda: HudiTable(uri, opts).upsert(up, NO_AUTO))
    HudiTable(local, {}).upsert(up, NO_AUTO)
    check_common(kinds, "upsert")
    assert count(kinds, r"LIST \.hoodie/timeline/") <= 4, kinds
    assert len(kinds) <= bound, (len(kinds), bound, show(kinds))
    print("upsert", len(kinds), "requests; bound", bound)

    bound = sum(needed_write(local, 2, 1).values()) + MDT_REOPENS
    _, kinds = trace.run(lambda: HudiTable(uri, opts).delete_keys(["k010", "k011"], NO_AUTO))
    HudiTable(local, {}).delete_keys(["k010", "k011"], NO_AUTO)
    check_common(kinds, "delete")
    assert count(kinds, r"LIST \.hoodie/timeline/") <= 4, kinds
    assert len(kinds) <= bound, (len(kinds), bound, show(kinds))
    print("delete", len(kinds), "requests; bound", bound)

    got, kinds = trace.run(lambda: HudiTable(uri, opts).read())
    print(show(kinds))
    check_common(kinds, "read")
    # A small immutable file (HFile, log file, base file) is fetched whole, once.
    c = collections.Counter(k for k in kinds if k.startswith("GET "))
    assert all(v == 1 for k, v in c.items() if re.search(r"\.(hfile|parquet)$|\.log\.\d+_", k)), c
    bound = sum(needed_read(local, 2).values())
    assert len(kinds) <= bound, (len(kinds), bound, show(kinds))
    print("read", len(kinds), "requests; bound", bound)
    assert rows(got) == rows(HudiTable(local, {}).read())
    assert rows(got) == rows(HudiTable(uri, {**opts, "request_cache": "false"}).read())


def test_trace_reports_body_bytes(moto, tmp_path):  # noqa: F811
    """The trace's byte fields ("... DOWN UP") against the objects as an independent client
    (botocore) downloads them: the bytes our client sent for an object's last upload (one PUT, or
    the parts of its last multipart upload: SMALL options make files over 4 KiB multipart) add up
    to the object's size; a whole-object GET brings exactly its size, a ranged GET no more than
    it; HEADs and DELETEs carry no body."""
    prefix = f"trace-bytes-{os.getpid()}-{time.time_ns()}/t/"
    uri = f"s3://{BUCKET}/{prefix}".rstrip("/")
    opts = s3_options(moto)
    path = tmp_path / "trace.txt"
    os.environ["HUDI_OBJSTORE_TRACE"] = str(path)
    try:
        t = HudiTable.create(uri, "id", ordering_fields="ts", table_type="mor", partition_fields=["p"],
                             record_index_enabled=True, storage_options=opts)
        t.append(batch(range(300), [1] * 300, ["a", "b", "c"] * 100, list(range(300))))
        HudiTable(uri, opts).upsert(batch(range(0, 300, 7), [2] * 43, ["a", "b", "c"] * 14 + ["a"],
                                          [-i for i in range(43)]))
        n_write = len(path.read_text().splitlines())
        got = HudiTable(uri, opts).read()
    finally:
        del os.environ["HUDI_OBJSTORE_TRACE"]
    assert pa.Table.from_batches(got).num_rows == 300
    dest = tmp_path / "copy"
    _helper(op="download", kind="s3", endpoint=moto, bucket=BUCKET, prefix=prefix, dest=str(dest))
    size = {str(f.relative_to(dest)): f.stat().st_size for f in dest.rglob("*") if f.is_file()}
    lines = [ln.split(" ") for ln in path.read_text().splitlines()]
    assert all(len(f) == 5 for f in lines), lines[:3]
    key_of = lambda target: target.partition("?")[0].replace("%3D", "=")[len(f"/{BUCKET}/{prefix}"):]  # noqa: E731

    uploads: dict = {}  # key -> [upload id or "", bytes]: the last upload of each object
    for method, status, target, down, up in lines[:n_write]:
        if method != "PUT" or not 200 <= int(status) < 300:
            continue
        query = target.partition("?")[2]
        upload = re.search(r"uploadId=([^&]*)", query)
        upload = upload[1] if upload else ""
        cur = uploads.get(key_of(target))
        if cur is None or cur[0] != upload or not upload:
            cur = uploads[key_of(target)] = [upload, 0]
        cur[1] += int(up)
    checked = [k for k in uploads if k in size]  # lock and heartbeat files are deleted again
    assert sum(1 for k in checked if k.endswith(".parquet")) >= 3, sorted(uploads)
    assert any(uploads[k][0] for k in checked), "no multipart upload was checked"
    for k in checked:
        assert uploads[k][1] == size[k], (k, uploads[k], size[k])

    whole = 0
    for method, status, target, down, up in lines:
        if method in ("HEAD", "DELETE"):
            assert down == "0" and up == "0", (method, target, down)
        if method != "GET" or "list-type=2" in target or not 200 <= int(status) < 300:
            continue
        k = key_of(target)
        if k not in size:
            continue
        assert up == "0"
        assert 0 < int(down) <= size[k], (k, down, size[k])
        whole += int(down) == size[k]
    props = [ln for ln in lines[n_write:] if ln[0] == "GET" and key_of(ln[2]) == ".hoodie/hoodie.properties"]
    assert props and all(int(ln[3]) == size[".hoodie/hoodie.properties"] for ln in props), props
    assert whole > 0


@pytest.mark.parametrize("index", ["record_index", "bloom"])
def test_large_base_footer_fetched_once(moto, index, tmp_path):  # noqa: F811
    """A COW upsert into a base file larger than the object cache's whole-object limit (1 MiB)
    opens its footer up to three times (the bloom index's key check, the new file's bloom filter
    resumed from it, the merge's read): the footer's ranged GET goes out once, the other opens are
    answered from the kept tail (io/objcache.h). The rewritten table reads back as the local
    twin's, so the kept tail is never stale."""
    prefix = f"footer-{index}-{os.getpid()}-{time.time_ns()}/t/"
    uri = f"s3://{BUCKET}/{prefix}".rstrip("/")
    opts = {k: v for k, v in s3_options(moto).items() if k not in ("list_max_keys", "multipart_threshold")}
    local = str(tmp_path / "local" / "t")
    n = 120_000
    rnd = [(i * 2654435761) % 2**32 for i in range(n)]  # incompressible enough: a file of several MiB
    first = pa.table({"id": [f"k{i:06d}" for i in range(n)], "p": ["a"] * n, "ts": pa.array([1] * n, pa.int64()),
                      "v": pa.array(rnd, pa.int64()), "s": [f"{r:08x}{r * 7 % 2**32:08x}" for r in rnd]})
    up = first.slice(10, 3).set_column(2, "ts", pa.array([2, 2, 2], pa.int64()))
    for u, o in ((uri, opts), (local, {})):
        HudiTable.create(u, "id", ordering_fields="ts", partition_fields="p", table_type="cow",
                         record_index_enabled=index == "record_index", storage_options=o)
        HudiTable(u, o).append(first, NO_AUTO)
    base = [f for f in os.listdir(Path(local) / "p=a") if f.endswith(".parquet")]
    assert len(base) == 1 and (Path(local) / "p=a" / base[0]).stat().st_size > 3 << 19, base  # 1.5 MiB
    trace = Trace(tmp_path / "trace", prefix)
    _, kinds = trace.run(lambda: HudiTable(uri, opts).upsert(up, NO_AUTO))
    HudiTable(local, {}).upsert(up, NO_AUTO)
    gets = collections.Counter(k for k in kinds if k.startswith("GET p=a/") and k.endswith(".parquet"))
    assert len(gets) == 1, gets  # the one base file the upsert rewrites
    needed = {
        "footer: its last 64 KiB, then the rest of it (the other opens copy the kept tail)": 2,
        "the merge's read: its row group's first range, then the column chunks": 2,
    }
    if index == "bloom":
        needed["the bloom index's check of the candidate keys: its own read of the file"] = 2
    n_gets = sum(gets.values())
    print(index, n_gets, "GETs of the base file; bound", sum(needed.values()))
    assert n_gets <= sum(needed.values()), (n_gets, needed, show(kinds))
    got = HudiTable(uri, opts).read()
    assert rows(got) == rows(HudiTable(local, {}).read())


def test_services_plan_from_the_metadata_table(moto, tmp_path):  # noqa: F811
    """The automatic clean and the inline compaction after a write plan from the metadata table's
    view, as Java's cleaner and compaction planner do: no LIST of a data partition, where
    listing storage would list every partition after every commit. The local twin, written the
    same way, reads back the same rows, and hudi_check accepts it. (LISTs left: the timelines,
    the metadata table's directory when its handle is refreshed, the markers.)"""
    prefix = f"services-{os.getpid()}-{time.time_ns()}/t/"
    uri = f"s3://{BUCKET}/{prefix}".rstrip("/")
    opts = {k: v for k, v in s3_options(moto).items() if k not in ("list_max_keys", "multipart_threshold")}
    local = str(tmp_path / "local" / "t")
    trace = Trace(tmp_path / "trace", prefix)
    wopts = {"hoodie.clean.commits.retained": "2", "hoodie.compact.inline": "true",
             "hoodie.compact.inline.max.delta.commits": "3"}
    ids = list(range(30))
    for u, o in ((uri, opts), (local, {})):
        HudiTable.create(u, "id", ordering_fields="ts", partition_fields="p", table_type="mor",
                         record_index_enabled=True, storage_options=o)
        HudiTable(u, o).append(batch(ids, [1] * 30, ["a", "b", "c"] * 10, ids), wopts)
    all_kinds = []
    for w in range(2, 10):
        up = batch([w, w + 10, w + 20], [w] * 3, ["a", "b", "c"][w % 3:] + ["a", "b", "c"][:w % 3], [w * 100] * 3)
        _, kinds = trace.run(lambda: HudiTable(uri, opts).upsert(up, wopts))
        HudiTable(local, {}).upsert(up, wopts)
        all_kinds += kinds
    timeline = os.listdir(Path(local) / ".hoodie" / "timeline")
    assert any(n.endswith(".clean") for n in timeline), timeline  # cleans ran
    assert any(n.endswith(".commit") for n in timeline), timeline  # compactions ran
    assert any(re.fullmatch(r"DELETE p=\w/.*", k) for k in all_kinds), show(all_kinds)  # files cleaned
    # no LIST of the table (a listing's: everything outside .hoodie/) nor of a partition
    assert count(all_kinds, r"LIST (p=.*)?") == 0, show(all_kinds)
    assert rows(HudiTable(uri, opts).read()) == rows(HudiTable(local, {}).read())
    from test_mdt_compact_async import check
    check(local)
