"""Object store vs local disk: snapshot reads and upsert/delete commit latency (issue 10).

The same seeded table (1M rows keyed by random UUID strings, the shape of bench/upsert's `uuid`
scenario) is written once to local disk and once to s3:// on moto's S3 server (and to az:// on
azurite with --backends s3,az), for COW and MOR. Then, on each copy:
  * snapshot read of the whole table, --reps times, each through a fresh HudiTable;
  * --rounds rounds of one upsert commit (--upsert existing keys with new values + 10% new keys)
    and one delete commit (--delete keys), timed one commit at a time;
  * the snapshot read again (MOR: now with log files to merge), --reps times.
Every timing carries wall seconds, our process CPU seconds (all threads), the server's CPU seconds
over the same interval (moto and azurite run on the same cores: their CPU is not our client's), the
1-minute load average, and the HTTP requests our client made, by method, with the body bytes
received and sent (HUDI_OBJSTORE_TRACE: one line per attempt, the same for both servers); GETs
are also counted for data files, metadata-table files and listings, and moto's own log of the
requests it served is kept next to the client's count as a check.
The oracle: the object-store copy reads back equal (sorted by key) to the local copy after every
round, and both equal the expected table built with pyarrow alone.

The servers are started with the set-up code of tests/python/test_objstore_tables.py (imported,
not copied): moto[server] and azurite from dev/setup-objstore.sh.

  PYTHONPATH=/tmp/my-hudi .venv/bin/python bench/objstore/objstore_bench.py --rows 1000000 \
      --out bench/objstore/results/run.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))
import test_objstore_tables as ots  # noqa: E402  (servers, bucket helper, options)

import hudi  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # moto colours its 4xx/204 log lines


# ---------------------------------------------------------------- servers


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and its reaped children so far."""
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    # fields after the name: state=0 ... utime=11 stime=12 cutime=13 cstime=14
    return sum(int(x) for x in f[11:15]) / TICK


class Server:
    """A loopback object-store server, its log (one line per request) and its CPU clock."""

    REQ = re.compile(r'"(GET|PUT|POST|HEAD|DELETE) (\S+) HTTP/1\.[01]" (\d{3})')

    def __init__(self, kind: str, work: Path):
        self.kind = kind
        d = work / kind
        d.mkdir(parents=True)
        self.log = d / "server.log"
        port = ots._free_port()
        if kind == "s3":
            cmd = [str(ots.OBJ_PY), "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
        else:
            cmd = ["node", str(ots.AZURITE_MAIN), "--blobHost", "127.0.0.1", "--blobPort", str(port),
                   "--location", str(d / "data"), "--skipApiVersionCheck", "--loose"]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=d)
        ots._wait_port(port, self.proc, self.log, kind)
        self.endpoint = f"http://127.0.0.1:{port}"
        extra = {"key": ots.AZURITE_KEY} if kind == "az" else {}
        ots._helper(op="mkbucket", kind=kind, endpoint=self.endpoint, bucket=ots.BUCKET, **extra)

    extra: dict = {}  # --storage-option KEY=VALUE

    def options(self) -> dict:
        # The backends' defaults (no test-sized pages or parts): what a user gets.
        if self.kind == "s3":
            return {"aws_endpoint": self.endpoint, "aws_region": "us-east-1", "aws_access_key_id": "testing",
                    "aws_secret_access_key": "testing", "aws_allow_http": "true", **self.extra}
        return {"azure_storage_use_emulator": "true", "azure_storage_endpoint": self.endpoint, **self.extra}

    def uri(self, prefix: str) -> str:
        return f"{self.kind}://{ots.BUCKET}/{prefix}"

    def cpu(self) -> float:
        return proc_cpu(self.proc.pid)

    def log_pos(self) -> int:
        return self.log.stat().st_size

    def server_logged_since(self, pos: int) -> "int | None":
        """Requests moto logged after byte pos (a check on the client's trace; azurite's access
        log is not parsed)."""
        if self.kind != "s3":
            return None
        with open(self.log, "rb") as f:
            f.seek(pos)
            text = ANSI.sub("", f.read().decode(errors="replace"))
        return sum(1 for _ in self.REQ.finditer(text))

    def stop(self) -> None:
        ots._stop(self.proc)


class Trace:
    """Our HTTP client's request trace (HUDI_OBJSTORE_TRACE, set before any table is opened: the
    client reads it at creation): "METHOD STATUS /path?query DOWN UP" per attempt."""

    def __init__(self, path: Path):
        self.path = path
        path.touch()
        os.environ["HUDI_OBJSTORE_TRACE"] = str(path)

    def pos(self) -> int:
        return self.path.stat().st_size

    def lines_since(self, pos: int) -> list:
        with open(self.path, "rb") as f:
            f.seek(pos)
            return [ln.split(" ") for ln in f.read().decode(errors="replace").splitlines()]

    def since(self, pos: int, watch: "set | None" = None) -> dict:
        """Requests and bytes by kind; with watch (object paths, no query), also the GETs of
        those objects ("GET watched", "GET watched bytes")."""
        out: dict = {"total": 0, "bytes_down": 0, "bytes_up": 0}

        def add(k, n=1):
            out[k] = out.get(k, 0) + n

        for method, status, target, down, up in self.lines_since(pos):
            down, up = int(down), int(up)
            out["total"] += 1
            out["bytes_down"] += down
            out["bytes_up"] += up
            add(method)
            if not 0 < int(status) < 500:
                add("retried")
            path, _, query = target.partition("?")
            if method != "GET":
                continue
            if watch is not None and path in watch:
                add("GET watched")
                add("GET watched bytes", down)
            if "list-type=2" in query or "comp=list" in query:
                add("GET list")
            elif "/.hoodie/metadata/" in path:
                add("GET mdt")
                add("GET mdt bytes", down)
            elif ".parquet" in path and "/.hoodie/" not in path:
                add("GET data parquet")
                add("GET data bytes", down)
        return out


# ---------------------------------------------------------------- data


def uuid4_strings(rng: np.random.Generator, n: int) -> pa.Array:
    b = rng.integers(0, 256, size=(n, 16), dtype=np.uint8)
    b[:, 6] = (b[:, 6] & 0x0F) | 0x40
    b[:, 8] = (b[:, 8] & 0x3F) | 0x80
    hexd = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    h = np.empty((n, 36), dtype=np.uint8)
    cols = [i for i in range(36) if i not in (8, 13, 18, 23)]
    nib = np.stack([b >> 4, b & 15], axis=2).reshape(n, 32)
    h[:, cols] = hexd[nib]
    h[:, [8, 13, 18, 23]] = ord("-")
    return pa.array(h.view("S36").ravel().astype(str))


def base_table(rng: np.random.Generator, n: int) -> pa.Table:
    cur = np.array(["USD", "EUR", "GBP", "JPY", "INR", "BRL"])
    st = np.array(["pending", "authorized", "captured", "refunded", "failed"])
    return pa.table({
        "id": uuid4_strings(rng, n),
        "seq": pa.array(np.arange(n, dtype=np.int64)),
        "account_id": pa.array(rng.integers(1, 2_000_000, n)),
        "amount": pa.array(np.round(rng.lognormal(3.5, 1.2, n), 2)),
        "currency": pa.array(cur[rng.choice(6, n, p=[0.55, 0.2, 0.1, 0.05, 0.05, 0.05])]),
        "status": pa.array(st[rng.choice(5, n, p=[0.1, 0.2, 0.6, 0.05, 0.05])]),
        "event_time": pa.array(1_767_225_600_000_000 + rng.integers(0, 86_400_000_000, n), pa.timestamp("us")),
    })


def rounds_of(rng: np.random.Generator, base: pa.Table, rounds: int, n_up: int, n_del: int):
    """[(upsert batch, delete keys, expected table after the round)]: pyarrow alone."""
    out = []
    expected = base
    for r in range(1, rounds + 1):
        pick = rng.choice(expected.num_rows, size=n_up + n_del, replace=False)
        upd = expected.take(pa.array(pick[:n_up]))
        upd = upd.set_column(1, "seq", pc.add(upd["seq"], 10**9 * r))
        upd = upd.set_column(3, "amount", pc.add(upd["amount"], pa.scalar(float(r))))
        fresh = base.slice(0, n_up // 10).set_column(0, "id", uuid4_strings(rng, n_up // 10))
        batch = pa.concat_tables([upd, fresh]).combine_chunks()
        gone = expected["id"].take(pa.array(pick[n_up:])).to_pylist()
        drop = pc.is_in(expected["id"], value_set=pa.concat_arrays([batch["id"].combine_chunks(),
                                                                    pa.array(gone)]))
        expected = pa.concat_tables([expected.filter(pc.invert(drop)), batch]).combine_chunks()
        out.append((batch, gone, expected))
    return out


def canon(t: pa.Table) -> pa.Table:
    t = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")])
    return t.sort_by("id").combine_chunks()


# ---------------------------------------------------------------- timing


def timed(fn, server: "Server | None", trace: "Trace | None" = None, watch: "set | None" = None):
    pos = server.log_pos() if server else 0
    tpos = trace.pos() if trace and server else 0
    scpu = server.cpu() if server else 0.0
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    res = fn()
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    m = {"seconds": round(wall, 4),
         "cpu_seconds": round(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, 4),
         "load_1m": round(os.getloadavg()[0], 2)}
    if server:
        time.sleep(0.05)  # the server's last log line and CPU tick
        m["server_cpu_seconds"] = round(server.cpu() - scpu, 3)
        if trace:
            m["requests"] = trace.since(tpos, watch)
        logged = server.server_logged_since(pos)
        if logged is not None:
            m["server_logged_requests"] = logged
    return res, m


def read_all(uri: str, opts: dict) -> pa.Table:
    return pa.Table.from_batches(hudi.HudiTable(uri, opts).read())


def fmt(m: dict) -> str:
    s = f"{m['seconds']:.3f}s cpu {m['cpu_seconds']:.2f}s load {m['load_1m']}"
    if "server_cpu_seconds" in m:
        rq = m.get("requests", {})
        s += (f" server-cpu {m['server_cpu_seconds']:.2f}s req {rq.get('total', '?')}"
              f" GET {rq.get('GET', 0)} down {rq.get('bytes_down', 0) / 1e6:.1f}MB up {rq.get('bytes_up', 0) / 1e6:.1f}MB")
    return s


def run_engine(kind: str, targets: list, base: pa.Table, plan: list, reps: int, res: dict,
               compare_ra: bool = True, trace: "Trace | None" = None) -> None:
    """targets: [(name, uri, options, server or None)]."""
    for name, uri, opts, server in targets:
        r = res.setdefault(f"{kind}/{name}", {"uri": uri, "ops": []})

        def op(label, fn, **extra):
            out, m = timed(fn, server, trace)
            m.update(op=label, **extra)
            r["ops"].append(m)
            print(f"[{kind} {name}] {label:<12} {fmt(m)}", flush=True)
            return out

        tbl = op("create", lambda: hudi.HudiTable.create(uri, "id", ordering_fields="seq", table_type=kind,
                                                        record_index_enabled=True, storage_options=opts))
        op("bulk_load", lambda: tbl.append(base), rows=base.num_rows)
        def reads(stage, want):
            # On an object store each repetition also reads with the read-ahead off
            # (read_ahead_bytes=0: one GET per range, as before it existed), interleaved
            # so both see the same load.
            for i in range(reps):
                got = op("read", lambda: read_all(uri, opts), rep=i, stage=stage)
                assert canon(got).equals(want), f"{kind}/{name}: read {stage} differs from the expected table"
                if server and compare_ra:
                    got = op("read", lambda: read_all(uri, {**opts, "read_ahead_bytes": "0"}), rep=i,
                             stage=stage + ", no read-ahead")
                    assert canon(got).equals(want), f"{kind}/{name}: read {stage} (no read-ahead) differs"

        reads("after load", canon(base))
        for rnd, (batch, gone, expected) in enumerate(plan, 1):
            op("upsert", lambda: hudi.HudiTable(uri, opts).upsert(batch), round=rnd, rows=batch.num_rows)
            op("delete", lambda: hudi.HudiTable(uri, opts).delete_keys(gone), round=rnd, rows=len(gone))
        reads("after commits", canon(plan[-1][2] if plan else base))
        r["end_state"] = "equal to the pyarrow-built expected table"


def summary(res: dict) -> list:
    """Medians per (engine, backend, op[, stage]) and the ratios to local."""
    rows = []
    for key, r in res.items():
        if "/" not in key:
            continue
        kind, name = key.split("/")
        groups: dict = {}
        for m in r["ops"]:
            g = m["op"] + (f" ({m['stage']})" if "stage" in m else "")
            groups.setdefault(g, []).append(m)
        for g, ms in groups.items():
            med = lambda k: float(np.median([m.get(k, 0.0) for m in ms]))  # noqa: E731
            reqs = ms[-1].get("requests", {})
            rows.append({"engine": kind, "backend": name, "op": g, "n": len(ms), "seconds": med("seconds"),
                         "min_seconds": min(m["seconds"] for m in ms),
                         "cpu_seconds": med("cpu_seconds"), "server_cpu_seconds": med("server_cpu_seconds"),
                         "requests": reqs})
    local = {(x["engine"], x["op"]): x for x in rows if x["backend"] == "local"}
    for x in rows:
        lo = local.get((x["engine"], x["op"].replace(", no read-ahead", "")))
        if lo and lo["seconds"] > 0:
            x["ratio_to_local"] = round(x["seconds"] / lo["seconds"], 2)
            x["min_ratio_to_local"] = round(x["min_seconds"] / lo["min_seconds"], 2)
        if lo and lo["cpu_seconds"] > 0:
            # our CPU plus the server's, against local disk's CPU: the cost with the load taken out
            x["cpu_ratio_to_local"] = round((x["cpu_seconds"] + x["server_cpu_seconds"]) / lo["cpu_seconds"], 2)
    return rows


def markdown(rows: list) -> str:
    out = ["| table | op | backend | wall s (median) | wall s (min) | our CPU s | server CPU s | requests "
           "| x local (median wall) | x local (min wall) | x local (CPU, ours + server's) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in rows:
        if x["op"] == "create":
            continue
        rq = x["requests"]
        rqs = " ".join(f"{k} {v}" for k, v in rq.items() if k != "total" and "bytes" not in k) if rq else ""
        if rq:
            rqs += f" ({rq['bytes_down'] / 1e6:.1f} MB down, {rq['bytes_up'] / 1e6:.1f} MB up)"
        out.append(f"| {x['engine']} | {x['op']} | {x['backend']} | {x['seconds']:.3f} | {x['min_seconds']:.3f} | "
                   f"{x['cpu_seconds']:.2f} | {x['server_cpu_seconds']:.2f} | {rqs} | {x.get('ratio_to_local', '')} | "
                   f"{x.get('min_ratio_to_local', '')} | {x.get('cpu_ratio_to_local', '')} |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--engines", default="cow,mor")
    ap.add_argument("--backends", default="s3", help="s3 and/or az, besides local")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--upsert", type=int, default=10_000)
    ap.add_argument("--delete", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--note", default=os.environ.get("HUDI_BENCH_BUILD_NOTE", ""))
    ap.add_argument("--no-compare-read-ahead", action="store_true",
                    help="skip the object-store reads with read_ahead_bytes=0")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE",
                    help="an extra object-store storage option, e.g. request_cache=false (the requests "
                         "the per-handle caches save: see src/io/objcache.h)")
    args = ap.parse_args()
    Server.extra = dict(kv.split("=", 1) for kv in args.storage_option)

    work = Path(tempfile.mkdtemp(prefix="objstore-bench-", dir=args.work))
    trace = Trace(work / "requests.trace")
    servers = {}
    rng = np.random.default_rng(args.seed)
    base = base_table(rng, args.rows)
    plan = rounds_of(rng, base, args.rounds, args.upsert, args.delete)
    res: dict = {"rows": args.rows, "argv": sys.argv[1:],
                 "env": {k: v for k, v in os.environ.items() if k.startswith("HUDI_") and k != "HUDI_OBJSTORE_TRACE"}, "hudi": hudi.__version__, "note": args.note, "cpus": os.cpu_count(),
                 "storage_options": Server.extra,
                 "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load_at_start": os.getloadavg()}
    try:
        for b in args.backends.split(","):
            if b:
                servers[b] = Server(b, work)
        for kind in args.engines.split(","):
            targets = [("local", str(work / f"local-{kind}" / "t"), {}, None)]
            for b, s in servers.items():
                targets.append((b, s.uri(f"bench-{kind}-{os.getpid()}/t"), s.options(), s))
            run_engine(kind, targets, base, plan, args.reps, res, not args.no_compare_read_ahead, trace)
        res["summary"] = summary(res)
        print(markdown(res["summary"]))
    finally:
        for s in servers.values():
            s.stop()
        if not os.environ.get("HUDI_BENCH_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(res, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
