"""The five scenarios' data: a base table and five rounds of (upsert batch, delete keys).

Everything is synthetic (this machine reaches no data sets) and seeded, so two runs at the same
scale produce byte-identical inputs. Generation is vectorised with numpy/pyarrow; the only
per-row Python is none. Each scenario keeps a live-key set while it builds its rounds so that
"existing" keys really exist and deletes hit live rows; within a round, the deleted keys are
disjoint from that round's upserted keys (so an incremental read of the round has one answer).

TPC-DS web_returns comes from tpcgen-cli (PyPI, a Rust port of dsdgen that runs offline).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from common import GENERATOR_VERSION

ROUNDS = 5
US = pa.timestamp("us", tz="UTC")
T2026 = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z in microseconds


def n_scaled(n: int, scale: float) -> int:
    return max(1, int(round(n * scale)))


# --------------------------------------------------------------------------- vectorised values


class Words:
    """A fixed vocabulary; texts are runs of words drawn with a skewed (Zipf-like) frequency."""

    def __init__(self, rng: np.random.Generator, size: int = 4096) -> None:
        lens = rng.integers(2, 11, size)
        letters = rng.integers(ord("a"), ord("z") + 1, int(lens.sum()), dtype=np.uint8)
        self.wlen = (lens + 1).astype(np.int64)  # each word carries its trailing space
        self.start = np.concatenate([[0], np.cumsum(self.wlen)[:-1]])
        flat = np.empty(int(self.wlen.sum()), dtype=np.uint8)
        # letters of word i go to flat[start[i] : start[i]+lens[i]], then a space
        pos = np.repeat(self.start, lens) + (np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens))
        flat[:] = ord(" ")
        flat[pos] = letters
        self.flat = flat
        self.size = size

    def texts(self, rng: np.random.Generator, n: int, mean_words: float, block: int = 50_000) -> pa.ChunkedArray:
        chunks = []
        for lo in range(0, n, block):
            m = min(block, n - lo)
            counts = np.maximum(1, rng.poisson(mean_words, m))
            tokens = (self.size * rng.random(int(counts.sum())) ** 2.5).astype(np.int64)
            wl = self.wlen[tokens]
            tok_start = np.cumsum(wl) - wl
            idx = np.repeat(self.start[tokens] - tok_start, wl) + np.arange(int(wl.sum()))
            data = self.flat[idx]
            row_bytes = np.add.reduceat(wl, np.concatenate([[0], np.cumsum(counts)[:-1]]))
            offsets = np.concatenate([[0], np.cumsum(row_bytes)]).astype(np.int32)
            chunks.append(pa.StringArray.from_buffers(m, pa.py_buffer(offsets), pa.py_buffer(data)))
        return pa.chunked_array(chunks, pa.string())


def uuid4_strings(rng: np.random.Generator, n: int) -> pa.Array:
    """Random version-4 UUIDs in their canonical 36-character form."""
    b = rng.integers(0, 256, (n, 16), dtype=np.uint8)
    b[:, 6] = (b[:, 6] & 0x0F) | 0x40
    b[:, 8] = (b[:, 8] & 0x3F) | 0x80
    hexd = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    h = np.empty((n, 32), dtype=np.uint8)
    h[:, 0::2] = hexd[b >> 4]
    h[:, 1::2] = hexd[b & 0x0F]
    out = np.full((n, 36), ord("-"), dtype=np.uint8)
    out[:, 0:8], out[:, 9:13], out[:, 14:18], out[:, 19:23], out[:, 24:36] = (
        h[:, 0:8], h[:, 8:12], h[:, 12:16], h[:, 16:20], h[:, 20:32])
    offsets = (np.arange(n + 1, dtype=np.int64) * 36).astype(np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(out.ravel()))


def pick(rng: np.random.Generator, values: List[str], n: int, p: Optional[List[float]] = None) -> pa.Array:
    idx = rng.choice(len(values), size=n, p=p)
    return pc.take(pa.array(values, pa.string()), pa.array(idx))


def embeddings(rng: np.random.Generator, n: int, dim: int = 384, block: int = 100_000) -> pa.ChunkedArray:
    """Unit-length float32 vectors (what a sentence-embedding model emits), as list<float32>:
    the type all three table formats store (fixed_size_list is not a Delta or Iceberg type)."""
    chunks = []
    for lo in range(0, n, block):
        m = min(block, n - lo)
        v = rng.standard_normal((m, dim), dtype=np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        offsets = pa.array(np.arange(m + 1, dtype=np.int32) * dim)
        chunks.append(pa.ListArray.from_arrays(offsets, pa.array(v.ravel())))
    return pa.chunked_array(chunks, pa.list_(pa.float32()))


def ts(micros: np.ndarray) -> pa.Array:
    return pa.array(micros.astype(np.int64), type=US)


def padded(prefix: str, ids: np.ndarray, width: int) -> pa.Array:
    s = pc.utf8_lpad(pc.cast(pa.array(ids), pa.string()), width, "0")
    return pc.binary_join_element_wise(prefix, s, "")


# --------------------------------------------------------------------------- scenario plumbing


@dataclass
class Generated:
    keys: List[str]
    base: pa.Table
    rounds: List[Tuple[pa.Table, pa.Table]]  # (upsert batch, delete keys)
    notes: List[str] = field(default_factory=list)
    change_feed: bool = False  # the scenario does incremental and time-travel reads


class LiveSet:
    """Which row ids (0..n) are live; choose existing ones without replacement."""

    def __init__(self, n: int) -> None:
        self.alive = np.ones(n, dtype=bool)

    def grow(self, k: int) -> np.ndarray:
        start = len(self.alive)
        self.alive = np.concatenate([self.alive, np.ones(k, dtype=bool)])
        return np.arange(start, start + k)

    def choose(self, rng: np.random.Generator, k: int, exclude: Optional[np.ndarray] = None) -> np.ndarray:
        mask = self.alive.copy()
        if exclude is not None and len(exclude):
            mask[exclude] = False
        live = np.flatnonzero(mask)
        k = min(k, len(live))
        return np.sort(rng.choice(live, size=k, replace=False))

    def kill(self, ids: np.ndarray) -> None:
        self.alive[ids] = False


# --------------------------------------------------------------------------- rag-chunks


def gen_rag(scale: float, rng: np.random.Generator, work: Path) -> Generated:
    words = Words(rng)
    n_docs = n_scaled(100_000, scale)
    per_doc = (1 + rng.poisson(9, n_docs)).astype(np.int64)  # mean 10 chunks per document
    doc_start = np.concatenate([[0], np.cumsum(per_doc)[:-1]])
    sources = ["web", "pdf", "wiki", "confluence", "slack", "email"]
    doc_source = rng.choice(len(sources), n_docs, p=[0.35, 0.25, 0.15, 0.1, 0.1, 0.05])
    doc_version = np.ones(n_docs, dtype=np.int32)

    def chunks_of(docs: np.ndarray, day: int) -> pa.Table:
        counts = per_doc[docs]
        doc = np.repeat(docs, counts)
        idx = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        m = len(doc)
        doc_ids = padded("doc-", doc, 8)
        text = words.texts(rng, m, 55.0)
        ntok = (pc.utf8_length(text).to_numpy() * 0.27).astype(np.int32) + 1
        return pa.table({
            "chunk_id": pc.binary_join_element_wise(doc_ids, padded("", idx, 4), "#"),
            "doc_id": doc_ids,
            "chunk_index": pa.array(idx.astype(np.int32)),
            "source": pc.take(pa.array(sources), pa.array(doc_source[doc])),
            "doc_version": pa.array(doc_version[doc]),
            "text": text,
            "token_count": pa.array(ntok),
            "embedding": embeddings(rng, m),
            "updated_at": ts(T2026 + day * 86_400_000_000 + rng.integers(0, 86_400_000_000, m)),
        })

    base = chunks_of(np.arange(n_docs), 0)
    live = LiveSet(n_docs)
    rounds = []
    for r in range(1, ROUNDS + 1):
        changed = live.choose(rng, n_scaled(1_000, scale))
        doc_version[changed] += 1
        up = chunks_of(changed, r)
        gone = live.choose(rng, n_scaled(100, scale), exclude=changed)
        live.kill(gone)
        dele = chunks_of_keys(per_doc, gone)
        rounds.append((up, dele))
    return Generated(["chunk_id"], base, rounds, notes=[
        f"{n_docs} documents, {base.num_rows} chunks (1 + Poisson(9) chunks per document), "
        "384-dim unit float32 embeddings as list<float32>, ~55-word texts from a Zipf-skewed vocabulary",
        "a re-ingested document keeps its chunk count; every one of its chunks is upserted",
        "deleting a document deletes all of its chunks by chunk_id",
    ])


def chunks_of_keys(per_doc: np.ndarray, docs: np.ndarray) -> pa.Table:
    counts = per_doc[docs]
    doc = np.repeat(docs, counts)
    idx = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return pa.table({"chunk_id": pc.binary_join_element_wise(padded("doc-", doc, 8), padded("", idx, 4), "#")})


# --------------------------------------------------------------------------- training-set


def gen_training(scale: float, rng: np.random.Generator, work: Path) -> Generated:
    words = Words(rng)
    n = n_scaled(1_000_000, scale)
    tasks = ["qa", "summarize", "classify", "extract", "translate", "code", "math", "chat", "rewrite", "reason"]
    label_p = 1.0 / np.arange(1, 101) ** 1.1
    label_p /= label_p.sum()

    def examples(ids: np.ndarray, revision: np.ndarray, day: int, corrected: bool) -> pa.Table:
        m = len(ids)
        return pa.table({
            "example_id": pa.array(ids.astype(np.int64)),
            "split": pick(rng, ["train", "validation", "test"], m, [0.8, 0.1, 0.1]),
            "task": pick(rng, tasks, m),
            "prompt": words.texts(rng, m, 30.0),
            "response": words.texts(rng, m, 45.0),
            "label": pa.array(rng.choice(100, m, p=label_p).astype(np.int32)),
            "quality": pa.array(np.round(rng.beta(5, 2, m), 4)),
            "annotator_id": pa.array(rng.integers(1, 500, m).astype(np.int32)),
            "is_corrected": pa.array(np.full(m, corrected)),
            "revision": pa.array(revision.astype(np.int32)),
            "updated_at": ts(T2026 + day * 86_400_000_000 + rng.integers(0, 86_400_000_000, m)),
        })

    ids = np.arange(n)
    revision = np.zeros(n, dtype=np.int32)
    base = examples(ids, revision, 0, False)
    live = LiveSet(n)
    rounds = []
    for r in range(1, ROUNDS + 1):
        fix = live.choose(rng, n_scaled(10_000, scale))
        revision[fix] += 1
        up = examples(fix, revision[fix], r, True)
        bad = live.choose(rng, n_scaled(1_000, scale), exclude=fix)
        live.kill(bad)
        rounds.append((up, pa.table({"example_id": pa.array(bad.astype(np.int64))})))
    return Generated(["example_id"], base, rounds, change_feed=True, notes=[
        f"{n} examples: split 80/10/10, 10 tasks, Zipf(1.1) labels over 100 classes, Beta(5,2) quality, "
        "~30-word prompts and ~45-word responses",
        "each round: upsert corrected examples (new response/label/quality, revision+1), delete rejected "
        "ones, then read the round's changes incrementally and time-travel to the bulk-load version",
    ])


# --------------------------------------------------------------------------- uuid


def gen_uuid(scale: float, rng: np.random.Generator, work: Path) -> Generated:
    n = n_scaled(10_000_000, scale)
    statuses = ["pending", "authorized", "captured", "refunded", "failed"]
    currencies = ["USD", "EUR", "GBP", "JPY", "INR", "BRL"]
    keys = uuid4_strings(rng, n)

    def rows(idv: pa.Array, m: int, seq: np.ndarray, day: int) -> pa.Table:
        return pa.table({
            "id": idv,
            "seq": pa.array(seq.astype(np.int64)),
            "account_id": pa.array(rng.integers(1, 2_000_000, m)),
            "amount": pa.array(np.round(rng.lognormal(3.5, 1.2, m), 2)),
            "currency": pick(rng, currencies, m, [0.55, 0.2, 0.1, 0.05, 0.05, 0.05]),
            "status": pick(rng, statuses, m, [0.1, 0.2, 0.6, 0.05, 0.05]),
            "event_time": ts(T2026 + day * 86_400_000_000 + rng.integers(0, 86_400_000_000, m)),
        })

    base = rows(keys, n, np.arange(n), 0)
    live = LiveSet(n)
    all_keys = [keys]
    rounds = []
    for r in range(1, ROUNDS + 1):
        upd = live.choose(rng, n_scaled(10_000, scale))
        fresh = live.grow(n_scaled(1_000, scale))
        new_keys = uuid4_strings(rng, len(fresh))
        all_keys.append(new_keys)
        keyarr = pa.chunked_array(all_keys).combine_chunks()
        ids = np.concatenate([upd, fresh])
        up = rows(pc.take(keyarr, pa.array(ids)), len(ids), ids, r)
        gone = live.choose(rng, n_scaled(1_000, scale), exclude=ids)
        live.kill(gone)
        rounds.append((up, pa.table({"id": pc.take(keyarr, pa.array(gone))})))
    return Generated(["id"], base, rounds, notes=[
        f"{n} rows keyed by random version-4 UUID strings (no order, no locality: every commit "
        "touches keys spread over the whole table)",
    ])


# --------------------------------------------------------------------------- nyc-taxi

# Zones with most yellow-cab pickups (Manhattan core, the airports), by TLC zone id.
_POPULAR = [237, 236, 161, 162, 230, 186, 142, 170, 132, 48, 68, 234, 79, 239, 163, 141, 140, 107, 238,
            263, 249, 100, 113, 164, 229, 90, 138, 43, 151, 50, 246, 262, 233, 137, 211, 158, 114, 148]


def _zones(rng: np.random.Generator, n: int) -> np.ndarray:
    w = np.full(265, 0.02)
    w[np.array(_POPULAR) - 1] = np.linspace(6.0, 1.0, len(_POPULAR))
    w[[263, 264]] = 0.3  # 264/265: unknown zones, present in the real data
    return rng.choice(np.arange(1, 266), n, p=w / w.sum())


def taxi_fares(rng: np.random.Generator, dist: np.ndarray, minutes: np.ndarray, ratecode: np.ndarray,
               pay: np.ndarray, pu: np.ndarray, hour: np.ndarray) -> Dict[str, np.ndarray]:
    m = len(dist)
    fare = np.round(2.5 + 2.5 * dist + 0.5 * minutes * 0.6, 1)
    jfk = ratecode == 2
    fare[jfk] = 52.0
    fare = np.where(rng.random(m) < 0.004, -fare, fare)  # refunds/disputes are negative in the TLC data
    extra = np.where((hour >= 16) & (hour < 20), 1.0, np.where((hour >= 20) | (hour < 6), 0.5, 0.0))
    mta = np.where(rng.random(m) < 0.99, 0.5, 0.0)
    tolls = np.where(rng.random(m) < 0.055, 6.55, 0.0)
    credit = pay == 1
    tip = np.where(credit, np.round(fare * rng.choice([0.0, 0.15, 0.2, 0.25, 0.3], m, p=[0.1, 0.15, 0.45, 0.2, 0.1]), 2), 0.0)
    improvement = np.full(m, 0.3)
    airport = np.where(np.isin(pu, [132, 138]), 1.25, 0.0)
    congestion = np.where(rng.random(m) < 0.9, 2.5, 0.0)
    total = np.round(fare + extra + mta + tip + tolls + improvement + airport + congestion, 2)
    return {"fare_amount": fare, "extra": extra, "mta_tax": mta, "tip_amount": tip, "tolls_amount": tolls,
            "improvement_surcharge": improvement, "total_amount": total,
            "congestion_surcharge": congestion, "airport_fee": airport}


def gen_taxi(scale: float, rng: np.random.Generator, work: Path) -> Generated:
    n = n_scaled(2_463_931, scale)  # rows in the real yellow_tripdata_2022-01.parquet
    # Pickup times over January 2022 with the daily cycle of yellow-cab demand.
    hour_w = np.array([3, 2, 1.4, 1, 0.8, 1, 2.2, 3.8, 4.6, 4.6, 4.6, 4.9, 5.2, 5.3, 5.6, 5.7, 5.8, 6.3,
                       6.6, 6.0, 5.3, 5.1, 4.6, 3.8])
    day = rng.integers(0, 31, n)
    hour = rng.choice(24, n, p=hour_w / hour_w.sum())
    t0 = 1_640_995_200_000_000  # 2022-01-01T00:00:00 (local wall clock, stored without zone)
    pickup = t0 + (day * 24 + hour) * 3_600_000_000 + rng.integers(0, 3_600_000_000, n)
    order = np.argsort(pickup, kind="stable")
    pickup, hour = pickup[order], hour[order]
    dist = np.round(np.minimum(rng.lognormal(0.55, 0.85, n), 150.0), 2)
    dist[rng.random(n) < 0.012] = 0.0
    minutes = np.maximum(1.0, dist * rng.uniform(2.5, 5.0, n) + rng.exponential(3.0, n))
    dropoff = pickup + (minutes * 60_000_000).astype(np.int64)
    missing = rng.random(n) < 0.029  # rows without passenger_count/RatecodeID/flag (as in the real file)
    ratecode = rng.choice([1, 2, 3, 4, 5, 99], n, p=[0.955, 0.03, 0.003, 0.002, 0.009, 0.001]).astype(np.float64)
    passengers = rng.choice([0, 1, 2, 3, 4, 5, 6], n, p=[0.02, 0.72, 0.14, 0.04, 0.02, 0.04, 0.02]).astype(np.float64)
    pay = rng.choice([1, 2, 3, 4], n, p=[0.76, 0.22, 0.01, 0.01])
    pay[missing] = 0
    pu, do = _zones(rng, n), _zones(rng, n)
    fares = taxi_fares(rng, dist, minutes, ratecode, pay, pu, hour)
    vendor = rng.choice([1, 2, 5, 6], n, p=[0.27, 0.725, 0.0025, 0.0025])

    def nullable(values: np.ndarray) -> pa.Array:
        return pa.array(values, mask=missing)

    base = pa.table({
        "trip_id": pa.array(np.arange(n, dtype=np.int64)),
        "VendorID": pa.array(vendor.astype(np.int64)),
        "tpep_pickup_datetime": pa.array(pickup, type=pa.timestamp("us")),
        "tpep_dropoff_datetime": pa.array(dropoff, type=pa.timestamp("us")),
        "passenger_count": nullable(passengers),
        "trip_distance": pa.array(dist),
        "RatecodeID": nullable(ratecode),
        "store_and_fwd_flag": pa.array(np.where(rng.random(n) < 0.008, "Y", "N"), mask=missing),
        "PULocationID": pa.array(pu.astype(np.int64)),
        "DOLocationID": pa.array(do.astype(np.int64)),
        "payment_type": pa.array(pay.astype(np.int64)),
        **{k: pa.array(v) for k, v in fares.items() if k not in ("congestion_surcharge", "airport_fee")},
        "congestion_surcharge": nullable(fares["congestion_surcharge"]),
        "airport_fee": nullable(fares["airport_fee"]),
    })
    live = LiveSet(n)
    rounds = []
    for r in range(1, ROUNDS + 1):
        fix = live.choose(rng, n_scaled(round(n * 0.01), 1.0))
        rows = base.take(pa.array(fix))
        fare = np.round(rows["fare_amount"].to_numpy() * rng.uniform(0.85, 1.15, len(fix)), 2)
        delta = fare - rows["fare_amount"].to_numpy()
        rows = rows.set_column(rows.schema.get_field_index("fare_amount"), "fare_amount", pa.array(fare))
        total = np.round(rows["total_amount"].to_numpy() + delta, 2)
        rows = rows.set_column(rows.schema.get_field_index("total_amount"), "total_amount", pa.array(total))
        gone = live.choose(rng, n_scaled(round(n * 0.001), 1.0), exclude=fix)
        live.kill(gone)
        rounds.append((rows, pa.table({"trip_id": pa.array(gone.astype(np.int64))})))
    return Generated(["trip_id"], base, rounds, notes=[
        f"{n} synthetic trips in the NYC TLC yellow-taxi schema of January 2022 (the real file has "
        "2,463,931 rows; no download is possible here): hourly demand cycle, log-normal distances, "
        "Manhattan/airport-skewed zones, credit/cash mix, fares from distance and time, TLC surcharges, "
        "~2.9% rows with null passenger_count/RatecodeID/store_and_fwd_flag/congestion_surcharge/airport_fee",
        "trip_id (int64, row number in pickup order) is added as the record key: TLC trips have none",
        "timestamps are timestamp[us] without zone, as in the TLC files",
    ])


# --------------------------------------------------------------------------- tpcds-web-returns


def _tpcgen() -> str:
    exe = Path(sys.executable).parent / "tpcgen-cli"
    if exe.exists():
        return str(exe)
    found = shutil.which("tpcgen-cli")
    if not found:
        raise RuntimeError("tpcgen-cli is not installed (pip install -r dev/requirements-bench.txt)")
    return found


def _cents(arr: pa.ChunkedArray) -> np.ndarray:
    """decimal128(7,2) -> int64 cents (nulls as 0; validity is kept separately)."""
    a = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    raw = np.frombuffer(a.buffers()[1], dtype=np.int64)[2 * a.offset: 2 * (a.offset + len(a))]
    return raw[0::2].copy()


def _decimal(cents: np.ndarray, like: pa.Array) -> pa.Array:
    """int64 cents -> decimal128(7,2) with the validity of `like` (16-byte two's complement)."""
    like = like.combine_chunks() if isinstance(like, pa.ChunkedArray) else like
    limbs = np.empty(2 * len(cents), dtype=np.int64)
    limbs[0::2] = cents
    limbs[1::2] = cents >> 63
    validity = pc.is_valid(like)
    arr = pa.Array.from_buffers(pa.decimal128(7, 2), len(cents), [None, pa.py_buffer(limbs)])
    return pc.if_else(validity, arr, pa.scalar(None, pa.decimal128(7, 2)))


def gen_tpcds(scale: float, rng: np.random.Generator, work: Path) -> Generated:
    sf = 10.0 * scale
    out = work / "tpcgen"
    if out.exists():
        shutil.rmtree(out)
    subprocess.run([_tpcgen(), "tpcds", "parquet", "-s", f"{sf:g}", "-T", "web_returns", "-o", str(out),
                    "-q", "--no-progress", "--field-ids", "false", "--compression", "SNAPPY"], check=True)
    files = sorted(out.glob("**/*.parquet"))
    base = pa.concat_tables([pq.read_table(f) for f in files])
    shutil.rmtree(out)
    # Generator output declares the key columns NOT NULL; the peers' merge sources must match the
    # table schema, so everything is nullable, as a Spark-written table would be.
    base = base.cast(pa.schema([pa.field(f.name, f.type, True) for f in base.schema]))
    n = base.num_rows
    keys = ["wr_item_sk", "wr_order_number"]
    live = LiveSet(n)
    pool = base  # rows of the current table, by row id (new rows appended as they are made)
    next_order = int(pc.max(base["wr_order_number"]).as_py()) + 1
    rounds = []
    for r in range(1, ROUNDS + 1):
        matched = live.choose(rng, n_scaled(round(n * 0.01), 1.0))
        upd = pool.take(pa.array(matched))
        # a corrected return: quantity and amounts revised, the dependent amounts recomputed
        factor = rng.uniform(0.5, 1.0, len(matched))
        amt = np.floor(_cents(upd["wr_return_amt"]) * factor).astype(np.int64)
        tax = np.floor(_cents(upd["wr_return_tax"]) * factor).astype(np.int64)
        cols = {
            "wr_return_amt": _decimal(amt, upd["wr_return_amt"]),
            "wr_return_tax": _decimal(tax, upd["wr_return_tax"]),
            "wr_return_amt_inc_tax": _decimal(amt + tax, upd["wr_return_amt_inc_tax"]),
            "wr_net_loss": _decimal(np.floor(_cents(upd["wr_net_loss"]) * factor).astype(np.int64), upd["wr_net_loss"]),
            "wr_return_quantity": pc.cast(pc.max_element_wise(
                pc.cast(pc.multiply(pc.cast(upd["wr_return_quantity"], pa.float64()), pa.array(factor)), pa.int32(),
                        safe=False), 1), pa.int32()),
        }
        for c, v in cols.items():
            upd = upd.set_column(upd.schema.get_field_index(c), c, v)
        # new returns: fresh order numbers, every other column drawn from existing returns so the
        # value distributions stay dsdgen's
        k_new = n_scaled(round(n * 0.10), 1.0)
        src = pool.take(pa.array(rng.integers(0, n, k_new)))
        src = src.set_column(src.schema.get_field_index("wr_order_number"), "wr_order_number",
                             pa.array(np.arange(next_order, next_order + k_new, dtype=np.int64)))
        next_order += k_new
        new_ids = live.grow(k_new)
        pool = pa.concat_tables([pool, src])
        up = pa.concat_tables([upd, src])
        gone = live.choose(rng, n_scaled(round(n * 0.05), 1.0), exclude=np.concatenate([matched, new_ids]))
        live.kill(gone)
        rounds.append((up, pool.take(pa.array(gone)).select(keys)))
    return Generated(keys, base, rounds, notes=[
        f"TPC-DS web_returns at scale factor {sf:g} from tpcgen-cli 4.0.0 (a dsdgen port on PyPI, runs "
        f"offline): {n} rows, the 24 columns and dsdgen's value distributions; DuckDB's tpcds extension "
        "was not usable (it downloads the extension at run time: 'Failed to download extension')",
        "matched upserts scale quantity and amounts by U(0.5,1) (amt_inc_tax recomputed); new rows take "
        "fresh order numbers and copy the other columns from random existing returns",
        "percentages are of the bulk-loaded row count",
    ])


SCENARIOS: Dict[str, Callable[[float, np.random.Generator, Path], Generated]] = {
    "rag-chunks": gen_rag,
    "training-set": gen_training,
    "uuid": gen_uuid,
    "nyc-taxi": gen_taxi,
    "tpcds-web-returns": gen_tpcds,
}
SEEDS = {"rag-chunks": 101, "training-set": 202, "uuid": 303, "nyc-taxi": 404, "tpcds-web-returns": 505}


def data_dir(work: Path, scenario: str, scale: float) -> Path:
    return work / "data" / f"{scenario}-s{scale:g}"


def ensure_data(work: Path, scenario: str, scale: float, log: Callable[[str], None] = print) -> Path:
    """Generate (or reuse) the scenario's input files and the expected end state."""
    import oracle

    d = data_dir(work, scenario, scale)
    meta_path = d / "meta.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("generator_version") == GENERATOR_VERSION:
            log(f"data: reusing {d}")
            return d
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    rng = np.random.default_rng(SEEDS[scenario])
    import time

    t0 = time.perf_counter()
    g = SCENARIOS[scenario](scale, rng, d)
    gen_s = time.perf_counter() - t0
    pq.write_table(g.base, d / "base.parquet")
    rounds = []
    for i, (up, dele) in enumerate(g.rounds, 1):
        pq.write_table(up, d / f"r{i}-upsert.parquet")
        pq.write_table(dele, d / f"r{i}-delete.parquet")
        rounds.append({"round": i, "upsert": f"r{i}-upsert.parquet", "upsert_rows": up.num_rows,
                       "delete": f"r{i}-delete.parquet", "delete_rows": dele.num_rows})
    t1 = time.perf_counter()
    expected = oracle.expected_state(g.base, [(up, dele) for up, dele in g.rounds], g.keys)
    pq.write_table(expected, d / "expected.parquet")
    oracle_s = time.perf_counter() - t1
    meta = {
        "scenario": scenario, "scale": scale, "seed": SEEDS[scenario], "generator_version": GENERATOR_VERSION,
        "keys": g.keys, "base_rows": g.base.num_rows, "expected_rows": expected.num_rows,
        "rounds": rounds, "change_feed": g.change_feed, "notes": g.notes,
        "generate_seconds": round(gen_s, 2), "oracle_seconds": round(oracle_s, 2),
    }
    meta_path.write_text(json.dumps(meta, indent=1))
    log(f"data: generated {scenario} at scale {scale:g} in {gen_s:.1f}s "
        f"({g.base.num_rows} base rows; expected end state {expected.num_rows} rows, oracle {oracle_s:.1f}s)")
    return d


if __name__ == "__main__":  # bench.py runs generation in its own process
    ensure_data(Path(sys.argv[3]), sys.argv[1], float(sys.argv[2]))
