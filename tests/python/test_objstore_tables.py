"""The table read/write suite against loopback object-store servers.

Servers (session fixtures, each on a free 127.0.0.1 port, stopped at the end):
  moto's S3 server (moto[server] in .venv-objstore, installed by dev/setup-objstore.sh): the s3://
      backend, and the gs:// backend through its endpoint override with HMAC keys (GCS's XML API is
      S3's protocol; moto stands in as the S3-compatible server);
  azurite (from .cache/azurite, Node.js), persisting in a temp dir: the az:// backend;
  tools/s3stub.py, the in-project fault-injecting S3 stub: retries and failed writes.
The tests skip, saying so, only when those servers are not installed.

Oracles: every step of one write sequence (create with the record index, append, upsert, delete,
delete_keys, update, compact, clean) and every query type (snapshot, time travel, incremental,
read-optimized) run on local disk too; the local run is the oracle: identical row sets (commit
times mapped to their position in the run's timeline), identical error outcomes, and the same
file layout (relative paths equal once instant times and uuids are blanked). The object-store
table is downloaded with an independent client (botocore / azure-storage-blob, run in
.venv-objstore's interpreter) and ../shared/tools/hudi_check.py must pass on it.
Fault injection: throttling (503 SlowDown), dropped connections and truncated bodies during an
upsert; the write either succeeds (retries) or fails, a fresh reader then sees exactly the old or
exactly the new rows, and the next write succeeds.
"""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pyarrow as pa
import pytest

import hudi
from hudi import HudiQueryType, HudiReadOptions, HudiTable
from hudi_fixtures import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
OBJ_PY = ROOT / ".venv-objstore" / "bin" / "python"
AZURITE_MAIN = ROOT / ".cache" / "azurite" / "node_modules" / "azurite" / "dist" / "src" / "blob" / "main.js"
STUB = ROOT / "tools" / "s3stub.py"
AZURITE_KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==")
BUCKET = "hudi-tables"
# Retries fast enough for tests; the fault tests rely on max_retries.
FAST_RETRY = {"retry_base_ms": "10", "max_retries": "4", "timeout_ms": "20000"}
# Small pages and multipart/staged-block uploads for files over 4 KiB (Azure: 4 KiB blocks), so the
# listing continuation and the multipart paths run against the real servers too.
SMALL = {"list_max_keys": "7", "multipart_threshold": "4096"}

# ---------------------------------------------------------------- servers


def _objstore_python_has(module: str) -> bool:
    if not OBJ_PY.exists():
        return False
    return subprocess.run([str(OBJ_PY), "-c", f"import {module}"], capture_output=True).returncode == 0


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _wait_port(port: int, proc: subprocess.Popen, log: Path, what: str) -> None:
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited ({proc.returncode}): {log.read_text(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port}: {log.read_text(errors='replace')}")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# A small client run with .venv-objstore's interpreter (botocore / azure-storage-blob live there,
# not in the project venv): makes buckets/containers and downloads a prefix to a local directory.
HELPER = r'''
import json, os, sys
req = json.loads(sys.argv[1])
op, kind = req["op"], req["kind"]
if kind == "s3":
    import botocore.session
    from botocore.config import Config
    c = botocore.session.get_session().create_client(
        "s3", endpoint_url=req["endpoint"], region_name="us-east-1", aws_access_key_id="testing",
        aws_secret_access_key="testing", config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
    if op == "mkbucket":
        c.create_bucket(Bucket=req["bucket"])
    else:
        n = 0
        for page in c.get_paginator("list_objects_v2").paginate(Bucket=req["bucket"], Prefix=req["prefix"]):
            for o in page.get("Contents", []):
                rel = o["Key"][len(req["prefix"]):]
                dst = os.path.join(req["dest"], rel)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "wb") as f:
                    f.write(c.get_object(Bucket=req["bucket"], Key=o["Key"])["Body"].read())
                n += 1
        print(n)
else:
    from azure.storage.blob import BlobServiceClient
    conn = ("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=%s;"
            "BlobEndpoint=%s/devstoreaccount1;" % (req["key"], req["endpoint"]))
    svc = BlobServiceClient.from_connection_string(conn, retry_total=0)
    if op == "mkbucket":
        svc.create_container(req["bucket"])
    else:
        cc = svc.get_container_client(req["bucket"])
        n = 0
        for b in cc.list_blobs(name_starts_with=req["prefix"]):
            dst = os.path.join(req["dest"], b.name[len(req["prefix"]):])
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(cc.download_blob(b.name).readall())
            n += 1
        print(n)
'''


def _helper(**req) -> str:
    r = subprocess.run([str(OBJ_PY), "-c", HELPER, json.dumps(req)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@pytest.fixture(scope="session")
def moto(tmp_path_factory):
    if not _objstore_python_has("moto.server") or not _objstore_python_has("botocore"):
        pytest.skip("moto[server]/botocore are not installed in .venv-objstore: run dev/setup-objstore.sh "
                    "(dev/test.sh does) to enable the S3 and GCS table tests")
    d = tmp_path_factory.mktemp("moto")
    port = _free_port()
    log = d / "moto.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(OBJ_PY), "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                stdout=out, stderr=subprocess.STDOUT, cwd=d)
    try:
        _wait_port(port, proc, log, "moto_server")
        endpoint = f"http://127.0.0.1:{port}"
        _helper(op="mkbucket", kind="s3", endpoint=endpoint, bucket=BUCKET)
        yield endpoint
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def azurite(tmp_path_factory):
    if not AZURITE_MAIN.exists() or shutil.which("node") is None or not _objstore_python_has("azure.storage.blob"):
        pytest.skip("azurite (.cache/azurite, needs node) or azure-storage-blob (.venv-objstore) is not "
                    "installed: run dev/setup-objstore.sh (dev/test.sh does) to enable the Azure table tests")
    d = tmp_path_factory.mktemp("azurite")
    port = _free_port()
    log = d / "azurite.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(["node", str(AZURITE_MAIN), "--blobHost", "127.0.0.1", "--blobPort", str(port),
                                 "--location", str(d / "data"), "--skipApiVersionCheck", "--loose"],
                                stdout=out, stderr=subprocess.STDOUT, cwd=d)
    try:
        _wait_port(port, proc, log, "azurite")
        endpoint = f"http://127.0.0.1:{port}"
        _helper(op="mkbucket", kind="az", endpoint=endpoint, bucket=BUCKET, key=AZURITE_KEY)
        yield endpoint
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def s3stub(tmp_path_factory):
    if not _objstore_python_has("botocore"):
        pytest.skip("botocore is not installed in .venv-objstore: run dev/setup-objstore.sh (dev/test.sh "
                    "does) to enable the fault-injection table tests")
    d = tmp_path_factory.mktemp("s3stub")
    port = _free_port()
    log = d / "stub.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, str(STUB), "--port", str(port), "--idle-exit", "600"],
                                stdout=out, stderr=subprocess.STDOUT, cwd=d)
    try:
        _wait_port(port, proc, log, "s3stub")
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


# ---------------------------------------------------------------- backends


class Backend:
    def __init__(self, name: str, endpoint: str, uri_scheme: str, options: dict, client: str):
        self.name, self.endpoint, self.scheme, self.options, self.client = (
            name, endpoint, uri_scheme, options, client)

    def uri(self, prefix: str) -> str:
        return f"{self.scheme}://{BUCKET}/{prefix}"

    def download(self, prefix: str, dest: Path) -> int:
        extra = {"key": AZURITE_KEY} if self.client == "az" else {}
        out = _helper(op="download", kind=self.client, endpoint=self.endpoint, bucket=BUCKET,
                      prefix=prefix + "/", dest=str(dest), **extra)
        return int(out.strip())


def s3_options(endpoint: str) -> dict:
    return {"aws_endpoint": endpoint, "aws_region": "us-east-1", "aws_access_key_id": "testing",
            "aws_secret_access_key": "testing", "aws_allow_http": "true", **FAST_RETRY, **SMALL}


@pytest.fixture(params=["s3", "gs", "az"])
def backend(request) -> Backend:
    if request.param == "s3":
        ep = request.getfixturevalue("moto")
        return Backend("s3", ep, "s3", s3_options(ep), "s3")
    if request.param == "gs":
        # The gs:// backend (GCS's XML API, SigV4 with HMAC keys) pointed at moto via google_endpoint.
        ep = request.getfixturevalue("moto")
        return Backend("gs", ep, "gs", {"google_endpoint": ep, "google_hmac_access_id": "testing",
                                        "google_hmac_secret": "testing", "aws_allow_http": "true",
                                        **FAST_RETRY, **SMALL}, "s3")
    ep = request.getfixturevalue("azurite")
    return Backend("az", ep, "az", {"azure_storage_use_emulator": "true", "azure_storage_endpoint": ep,
                                    **FAST_RETRY, **SMALL, "multipart_part_size": "4096"}, "az")


# ---------------------------------------------------------------- the write/read sequence


def batch(ids, ts, parts, vals) -> pa.Table:
    return pa.table({"id": [f"k{i:03d}" for i in ids], "p": parts, "ts": pa.array(ts, pa.int64()),
                     "v": pa.array(vals, pa.int64())})


def normalize(batches, instants: list) -> list:
    """Rows with commit times replaced by their position among the run's instants, without the
    columns that hold instants/uuids (seqno, file name); sorted."""
    if not batches:
        return []
    pos = {t: i for i, t in enumerate(instants)}
    out = []
    for r in pa.Table.from_batches(batches).to_pylist():
        r.pop("_hoodie_commit_seqno", None)
        r.pop("_hoodie_file_name", None)
        if "_hoodie_commit_time" in r:
            r["_hoodie_commit_time"] = pos.get(r["_hoodie_commit_time"], "?" + str(r["_hoodie_commit_time"]))
        out.append(r)
    return sorted(out, key=lambda r: json.dumps(r, sort_keys=True, default=str))


def attempt(fn):
    try:
        return fn()
    except hudi.HudiError as e:  # the same outcome is expected on both sides
        return ("error", type(e).__name__)


def run_sequence(uri: str, opts: dict, kind: str) -> dict:
    """Runs the write sequence on uri and returns {step: normalized result}."""
    res: dict = {}
    instants: list = []  # requested times, in order
    completions: list = []
    no_auto = {"hoodie.clean.automatic": "false", "hoodie.compact.inline": "false",
               "hoodie.parquet.max.file.size": "6000"}

    def table() -> HudiTable:
        return HudiTable(uri, opts)  # a fresh reader/writer every time

    def wrote(label, r):
        instants.append(r.requested_time)
        completions.append(r.completion_time)
        res[label + ".result"] = (r.action, r.operation, r.num_writes, r.num_inserts, r.num_updates,
                                  r.num_deletes, r.partitions_written)
        res[label + ".snapshot"] = normalize(table().read(), instants)

    t = HudiTable.create(uri, "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=True, storage_options=opts)
    res["props"] = {k: v for k, v in t.properties().items() if "create" not in k and "timestamp" not in k}
    ids = list(range(60))
    wrote("append", table().append(batch(ids, [1] * 60, ["a" if i % 3 else "b" for i in ids],
                                         [i * 10 for i in ids]), no_auto))
    up = [5, 6, 7, 50, 51, 100, 101, 102, 7]
    wrote("upsert", table().upsert(batch(up, [2, 0, 3, 2, 2, 1, 1, 1, 4],
                                         ["a", "b", "a", "b", "a", "b", "a", "a", "a"],
                                         [1000 + i for i in range(len(up))]), no_auto))
    wrote("delete", table().delete("v >= 300 AND v < 350", no_auto))
    wrote("delete_keys", table().delete_keys(["k010", "k011", "k999"], no_auto))
    wrote("update", table().update("p = 'b' AND v < 100", {"v": 7}, no_auto))
    wrote("upsert2", table().upsert(batch([1, 2, 200], [9, 9, 9], ["a", "a", "b"], [1, 2, 3]), no_auto))
    if kind == "mor":
        ro = HudiReadOptions().with_read_optimized()
        res["read_optimized.before_compact"] = normalize(table().read(ro), instants)
        c = table().compact()
        assert c.requested_time, "a MOR table with log files compacts"
        instants.append(c.requested_time)
        res["compact.snapshot"] = normalize(table().read(), instants)
        res["read_optimized.after_compact"] = normalize(table().read(ro), instants)
    # Time travel to every write, and incremental ranges between consecutive writes.
    for i, inst in enumerate(instants):
        res[f"as_of.{i}"] = attempt(lambda: normalize(table().read(HudiReadOptions().with_as_of_timestamp(inst)),
                                                       instants))
    inc = HudiReadOptions().with_query_type(HudiQueryType.Incremental)
    prev = None
    for i, end in enumerate(completions):
        o = inc.with_end_timestamp(end)
        if prev:
            o = o.with_start_timestamp(prev)
        res[f"incremental.{i}"] = attempt(lambda: normalize(table().read(o), instants))
        prev = end
    res["incremental.all"] = normalize(table().read(inc), instants)
    cl = table().clean({"hoodie.clean.commits.retained": "1"})
    res["clean"] = (bool(cl.requested_time), cl.earliest_commit_to_retain in instants,
                    instants.index(cl.earliest_commit_to_retain) if cl.earliest_commit_to_retain in instants else None)
    if cl.requested_time:
        instants.append(cl.requested_time)
    res["clean.snapshot"] = normalize(table().read(), instants)
    for i, inst in enumerate(instants):
        res[f"clean.as_of.{i}"] = attempt(
            lambda: normalize(table().read(HudiReadOptions().with_as_of_timestamp(inst)), instants))
    res["slices"] = sorted((s.partition_path, len(s.log_files) if hasattr(s, "log_files") else 0)
                           for s in table().get_file_slices())
    return res


INSTANT = re.compile(r"\d{17}")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


WRITE_TOKEN = re.compile(r"_\d+-\d+-\d+(?=[._]|$)")


def layout(root: Path) -> collections.Counter:
    """Relative paths of every file, instants, uuids and write tokens blanked. The write token
    (task-stage-attempt) follows the order in which a commit handles its file groups, which
    follows their random file ids, so two runs of one sequence may give the same files other
    tokens."""
    out = collections.Counter()
    for d, _, files in os.walk(root):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), root)
            if rel.startswith(".hoodie/.lock") or "/.lock" in rel:
                continue
            out[WRITE_TOKEN.sub("_W", UUID.sub("U", INSTANT.sub("T", rel)))] += 1
    return out


def per_dir_suffix(c: collections.Counter) -> collections.Counter:
    out = collections.Counter()
    for rel, n in c.items():
        d, f = os.path.split(rel)
        suffix = f.rsplit(".", 1)[-1] if "." in f.lstrip(".") else ""
        out[(d, re.sub(r"^\d+_\d+-\d+-\d+$", "N_W", suffix))] += n
    return out


SYNC_FAIL = re.compile(r"^FAIL metadata\.sync: \.hoodie/timeline/(\d{17})_\d{17}\.rollback: "
                       r"no completed metadata-table instant \1;")


def rollback_never_reached_mdt(path: Path, line: str) -> bool:
    """Whether a checker metadata.sync failure is a data-table rollback of an instant that never
    reached the metadata table. Apache Hudi 1.x writes no MDT instant for such a rollback
    (HoodieBackedTableMetadataWriter.update(HoodieRollbackMetadata, ..): "Ignoring rollback of
    instant .. The commit to rollback is not found in MDT"), which the checker does not exempt."""
    import fastavro
    m = SYNC_FAIL.match(line)
    if not m:
        return False
    tl = path / ".hoodie" / "timeline"
    (done,) = [f for f in os.listdir(tl) if f.startswith(m[1] + "_") and f.endswith(".rollback")]
    with open(tl / done, "rb") as f:
        meta = next(fastavro.reader(f))
    mdt_tl = os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
    return all(not any(x.startswith(t) for x in mdt_tl) for t in meta["commitsRollback"])


def check(path: Path, kind: str) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL ")]
    assert r.returncode == 0 or (fails and all(rollback_never_reached_mdt(path, ln) for ln in fails)), (
        r.stdout + r.stderr)
    for name in ["metadata.files-listing", "metadata.record-index"]:
        assert f"PASS {name}:" in r.stdout, r.stdout
    return r.stdout


_local_runs: dict = {}


def local_run(tmp_path_factory, kind: str):
    if kind not in _local_runs:
        path = tmp_path_factory.mktemp(f"local-{kind}") / "t"
        _local_runs[kind] = (path, run_sequence(str(path), {}, kind))
        check(path, kind)
    return _local_runs[kind]


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_table_suite_matches_local_disk(backend, kind, tmp_path, tmp_path_factory):
    local_path, want = local_run(tmp_path_factory, kind)
    prefix = f"suite-{backend.name}-{kind}-{os.getpid()}-{time.time_ns()}/t"
    got = run_sequence(backend.uri(prefix), backend.options, kind)
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == want[k], f"{backend.name} {kind}: step {k} differs from the local run"
    dest = tmp_path / "download"
    assert backend.download(prefix, dest) > 0
    lay_got, lay_want = layout(dest), layout(local_path)
    assert per_dir_suffix(lay_got) == per_dir_suffix(lay_want)
    assert lay_got == lay_want
    out = check(dest, kind)
    assert "PASS metadata.record-index" in out


# ---------------------------------------------------------------- fault injection


def stub_post(endpoint: str, path: str, body: dict) -> None:
    req = urllib.request.Request(endpoint + path, data=json.dumps(body).encode(), method="POST")
    urllib.request.urlopen(req, timeout=10).read()


def stub_stats(endpoint: str) -> dict:
    return json.loads(urllib.request.urlopen(endpoint + "/__stats", timeout=10).read())


def drain_faults(endpoint: str, method: str, match: str, until: int) -> None:
    """Consumes queued faults (the stub takes a fault before it checks the signature) until the
    stub has served `until` faults in all."""
    for _ in range(10000):
        if stub_stats(endpoint)["faults"] >= until:
            return
        req = urllib.request.Request(f"{endpoint}/{BUCKET}/__drain/{match}", method=method,
                                     data=b"" if method == "PUT" else None)
        try:
            urllib.request.urlopen(req, timeout=10).read()
        except (urllib.error.URLError, OSError, ConnectionError, http_client_errors()):
            pass
    raise AssertionError("faults did not drain")


def http_client_errors():
    import http.client
    return http.client.HTTPException


def rows(uri: str, opts: dict) -> list:
    return sorted((r["id"], r["p"], r["ts"], r["v"])
                  for r in pa.Table.from_batches(HudiTable(uri, opts).read()).to_pylist())


def upsert_model(model: dict, b: pa.Table) -> dict:
    m = dict(model)
    for r in b.to_pylist():
        old = m.get(r["id"])
        if old is None or r["ts"] >= old[2]:
            m[r["id"]] = (r["id"], r["p"], r["ts"], r["v"])
    return m


# (fault, whether a write must still succeed through retries)
FAULTS = [
    ({"kind": "503", "count": 2}, True),
    ({"kind": "500", "count": 1, "method": "PUT", "match": "timeline"}, True),
    ({"kind": "drop", "count": 2, "method": "PUT"}, True),
    ({"kind": "drop", "count": 2, "method": "GET"}, True),
    ({"kind": "truncate", "count": 2, "method": "GET", "match": ".parquet"}, True),
    # More faults than retries: the write may fail, but must fail cleanly. (The stub's faults hit the
    # next N requests whose key contains a substring, so the data timeline's completion PUT cannot be
    # singled out from the requested/inflight PUTs before it.)
    ({"kind": "503", "count": 40, "method": "PUT", "match": ".hoodie/metadata/"}, False),
    ({"kind": "503", "count": 40, "method": "PUT", "match": ".parquet.marker"}, False),
    ({"kind": "503", "count": 40, "method": "PUT", "match": "t/p=b/"}, False),  # the data files
    ({"kind": "drop", "count": 40, "method": "PUT", "match": "timeline"}, False),
    ({"kind": "truncate", "count": 40, "method": "GET", "match": ".hoodie/"}, False),
    ({"kind": "503", "count": 40, "method": "GET", "match": "t/p="}, False),
]


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_faults_during_upsert_leave_old_or_new_table(s3stub, kind, tmp_path):
    # The stub has no multipart upload: single PUTs only.
    opts = {**s3_options(s3stub), "max_retries": "3", "retry_base_ms": "5", "multipart_threshold": str(64 << 20)}
    prefix = f"faults-{kind}-{os.getpid()}-{time.time_ns()}/t"
    uri = f"s3://{BUCKET}/{prefix}"
    HudiTable.create(uri, "id", ordering_fields="ts", partition_fields="p", table_type=kind, storage_options=opts)
    first = batch(range(20), [1] * 20, ["a" if i % 2 else "b" for i in range(20)], list(range(20)))
    HudiTable(uri, opts).append(first)
    model = upsert_model({}, first)
    assert rows(uri, opts) == sorted(model.values())
    outcomes = []
    for n, (fault, must_succeed) in enumerate(FAULTS):
        ts = 10 + n
        b = batch([n, 100 + n], [ts, ts], ["a", "b"], [1000 * ts, 1000 * ts + 1])
        new = upsert_model(model, b)
        before = stub_stats(s3stub)["faults"]
        stub_post(s3stub, "/__fault", fault)
        t0 = time.time()
        try:
            HudiTable(uri, opts).upsert(b)
            ok = True
        except hudi.HudiError as e:
            ok = False
            err = str(e)
        # Whatever the faults did not hit stays queued: consume it before reading.
        drain_faults(s3stub, fault.get("method", "GET"), fault.get("match", ""), before + fault["count"])
        if must_succeed:
            assert ok, f"{fault}: the retries should have absorbed the faults: {err}"
        got = rows(uri, opts)
        assert got in (sorted(model.values()), sorted(new.values())), f"{fault}: a mix of old and new"
        if ok:
            assert got == sorted(new.values()), f"{fault}: the write succeeded but its rows are not visible"
            model = new
        outcomes.append((fault["kind"], fault.get("match"), ok, None if ok else err[:200], round(time.time() - t0, 1)))
        # The next write (no faults) succeeds, rolling back what a failed one left.
        nb = batch([300 + n], [ts], ["a"], [n])
        HudiTable(uri, opts).upsert(nb)
        model = upsert_model(model, nb)
        assert rows(uri, opts) == sorted(model.values()), f"after {fault}"
    # At least one of the over-retry faults made a write fail (else the test proved nothing).
    assert any(not o[2] for o in outcomes), outcomes
    print(outcomes)
    dest = tmp_path / "download"
    assert Backend("s3", s3stub, "s3", opts, "s3").download(prefix, dest) > 0
    check(dest, kind)
