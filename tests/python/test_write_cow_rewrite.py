"""COPY_ON_WRITE rewrites of wide rows (embeddings as list<float32>, texts), checked by pyarrow.

A COW upsert copies the unchanged rows of each touched base file as runs of the stored batches
(only the file-name column replaced) and Parquet GZIP pages whose bytes LZ77 cannot shrink
(float vectors) are coded with literals only. pyarrow is the oracle for what the new base file
holds (row order, values, meta columns) and for the size gzip should reach on those pages;
../shared/tools/hudi_check.py must pass.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"
DIM = 64
# These tests are about GZIP pages (literal-only coding); zstd is the default on version-8 tables.
GZIP = {"hoodie.parquet.compression.codec": "gzip"}


def check(table_dir) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def rows(ids: np.ndarray, rng: np.random.Generator, version: int) -> pa.Table:
    n = len(ids)
    v = rng.standard_normal((n, DIM), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    words = np.array(["alpha", "beta", "gamma", "delta", "hudi", "parquet", "table", "commit"])
    text = [" ".join(words[rng.integers(0, len(words), 12)]) for _ in range(n)]
    return pa.table({
        "id": pa.array([f"id-{i:07d}" for i in ids]),
        "version": pa.array(np.full(n, version, np.int32)),
        "text": pa.array(text),
        "embedding": pa.ListArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32) * DIM), pa.array(v.ravel())),
    })


def as_list_f32(t: pa.Table) -> pa.Table:
    i = t.schema.get_field_index("embedding")
    return t.set_column(i, "embedding", t["embedding"].cast(pa.list_(pa.float32())))


def test_cow_upsert_of_embeddings(tmp_path):
    rng = np.random.default_rng(7)
    path = tmp_path / "t"
    n = 40_000  # several reader batches per file
    t = HudiTable.create(str(path), "id", table_type="cow")
    base = rows(np.arange(n), rng, 1)
    t.append(base, GZIP)
    [old_file] = glob.glob(str(path / "*.parquet"))
    old = pq.read_table(old_file)

    # updates spread over the file (runs of unchanged rows between them, at
    # batch edges too), deletes, and new keys
    upd = np.unique(np.concatenate([rng.choice(n, 300, replace=False), [0, 1, n - 1, 8191, 8192]]))
    dele = np.setdiff1d(rng.choice(n, 50, replace=False), upd)
    ins = np.arange(n, n + 20)
    batch = rows(np.concatenate([upd, ins]), rng, 2)
    r = HudiTable(str(path)).upsert(batch, GZIP)
    assert (r.num_updates, r.num_inserts) == (len(upd), len(ins))
    r2 = HudiTable(str(path)).delete_keys([f"id-{i:07d}" for i in dele], GZIP)
    assert r2.num_deletes == len(dele)

    files = sorted(glob.glob(str(path / "*.parquet")), key=lambda f: os.path.basename(f).rsplit("_", 1)[1])
    upsert_file = [f for f in files if f.endswith(f"_{r.requested_time}.parquet")][0]
    new = pq.read_table(upsert_file)
    assert pc.all(pc.equal(new["_hoodie_file_name"], os.path.basename(upsert_file))).as_py()
    # the stored order, updated rows in their place, new keys after
    want_ids = old["id"].to_pylist() + [f"id-{i:07d}" for i in ins]
    assert new["id"].to_pylist() == want_ids
    data = ["id", "version", "text", "embedding"]
    upd_keys = pa.array([f"id-{i:07d}" for i in upd])
    is_upd = pc.is_in(new["id"], upd_keys)
    changed = as_list_f32(new.filter(is_upd).select(data)).sort_by("id")
    assert changed.equals(batch.filter(pc.is_in(batch["id"], upd_keys)).sort_by("id"))
    kept = new.filter(pc.invert(pc.or_(is_upd, pc.is_in(new["id"], pa.array([f"id-{i:07d}" for i in ins])))))
    assert kept.num_rows == n - len(upd)
    meta = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path"]
    old_kept = old.filter(pc.invert(pc.is_in(old["id"], upd_keys)))
    assert kept.select(meta + data).equals(old_kept.select(meta + data))
    assert pc.all(pc.equal(new.filter(is_upd)["_hoodie_commit_time"], r.requested_time)).as_py()

    # gzip (Hudi 1.x's default codec before zstd) on the float pages: no larger than pyarrow's gzip
    md = pq.read_metadata(upsert_file)
    ours = {md.row_group(g).column(c).path_in_schema: 0 for g in range(md.num_row_groups) for c in range(md.num_columns)}
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            col = md.row_group(g).column(c)
            assert col.compression == "GZIP"
            ours[col.path_in_schema] += col.total_compressed_size
    ref_path = tmp_path / "ref.parquet"
    pq.write_table(new, ref_path, compression="gzip")
    ref = pq.read_metadata(ref_path)
    emb = [k for k in ours if k.startswith("embedding")][0]
    ref_emb = sum(ref.row_group(g).column(c).total_compressed_size for g in range(ref.num_row_groups)
                  for c in range(ref.num_columns) if ref.row_group(g).column(c).path_in_schema.startswith("embedding"))
    raw = new.num_rows * DIM * 4
    assert ours[emb] < raw  # float bits compress little: pyarrow's gzip reaches 0.987 here
    assert ours[emb] <= 1.02 * ref_emb, (ours[emb], ref_emb)

    # the snapshot after the delete
    snap = pa.Table.from_batches(HudiTable(str(path)).read())
    assert sorted(snap["id"].to_pylist()) == sorted(set(want_ids) - {f"id-{i:07d}" for i in dele})
    check(path)


def test_cow_upsert_of_long_update_runs_and_losing_orderings(tmp_path):
    """Updated rows side by side (a whole reader batch and more: 9,000 in a row), rows whose
    incoming ordering value is lower (the stored row stays, within a run of unchanged rows) and
    single updates between them; the new file holds the stored order with each row's winner."""
    n = 20_000
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="cow")
    ids = [f"k{i:06d}" for i in range(n)]
    t.append(pa.table({"id": ids, "ts": pa.array(np.full(n, 10, np.int64)), "v": pa.array(np.arange(n))}))
    [old_file] = glob.glob(str(path / "*.parquet"))
    old = pq.read_table(old_file)

    run = np.arange(100, 9100)                 # 9,000 consecutive rows across the first batch's end
    losers = np.arange(12_000, 14_000, 3)      # lower ts: the stored rows win
    singles = np.arange(14_001, 20_000, 97)    # one updated row at a time
    up_ids = np.concatenate([run, losers, singles])
    ts = np.concatenate([np.full(len(run), 20), np.full(len(losers), 5), np.full(len(singles), 20)]).astype(np.int64)
    batch = pa.table({"id": [ids[i] for i in up_ids], "ts": pa.array(ts), "v": pa.array(up_ids + 1_000_000)})
    r = HudiTable(str(path)).upsert(batch)
    assert r.num_inserts == 0

    [new_file] = [f for f in glob.glob(str(path / "*.parquet")) if f.endswith(f"_{r.requested_time}.parquet")]
    new = pq.read_table(new_file)
    assert new["id"].to_pylist() == ids  # the stored order
    assert pc.all(pc.equal(new["_hoodie_file_name"], os.path.basename(new_file))).as_py()
    want_v = np.arange(n)
    won = np.concatenate([run, singles])
    want_v[won] += 1_000_000
    assert new["v"].to_numpy().tolist() == want_v.tolist()
    want_ts = np.full(n, 10)
    want_ts[won] = 20
    assert new["ts"].to_numpy().tolist() == want_ts.tolist()
    # rows that lost (and all unchanged ones) keep their commit time and sequence number
    is_new = np.zeros(n, bool)
    is_new[won] = True
    commit = new["_hoodie_commit_time"].to_pylist()
    seq = new["_hoodie_commit_seqno"].to_pylist()
    old_commit, old_seq = old["_hoodie_commit_time"].to_pylist(), old["_hoodie_commit_seqno"].to_pylist()
    for i in range(n):
        if is_new[i]:
            assert commit[i] == r.requested_time, i
        else:
            assert (commit[i], seq[i]) == (old_commit[i], old_seq[i]), i
    snap = pa.Table.from_batches(HudiTable(str(path)).read()).sort_by("id")
    assert snap["v"].to_numpy().tolist() == want_v.tolist()
    check(path)


BLOOM = b"org.apache.hudi.bloomfilter"


def fresh_filter(tmp_path, name: str, keys: list) -> bytes:
    """The footer filter a new table's one base file gets for keys, in this order."""
    t = HudiTable.create(str(tmp_path / name), "id", table_type="cow")
    t.append(pa.table({"id": keys}))
    [f] = glob.glob(str(tmp_path / name / "*.parquet"))
    assert pq.read_table(f, columns=["_hoodie_record_key"]).column(0).to_pylist() == keys  # the order kept
    return pq.ParquetFile(f).metadata.metadata[BLOOM]


def test_cow_rewrite_filter_equals_a_fresh_one(tmp_path):
    """A COW rewrite whose slice has only updates and inserts keeps every stored key in file order and
    appends the new ones, so its footer filter is continued from the stored file's (merge_write.c
    resume_bloom; hudi_bloom_resume). Whether continued or, with a delete in the slice, built anew,
    it must equal the filter a fresh write of the same keys in the same order gets, byte for byte
    (that filter is Java's: test_write_append.py::test_bloom_filter_matches_spark). 70,000 rows:
    past Java's 60,000-key first row, so the filter has two rows; then past 120,000 keys, the
    round-robin phase whose position the footer does not store."""
    rng = np.random.default_rng(11)
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="cow")
    n = 70_000
    ids = [f"k{i:07d}" for i in rng.permutation(n)]
    t.append(pa.table({"id": ids, "ts": pa.array(np.zeros(n, np.int64)), "v": pa.array(np.arange(n))}))

    def step(batch, verb):
        r = getattr(HudiTable(str(path)), verb)(batch)
        [f] = [f for f in glob.glob(str(path / "*.parquet")) if f.endswith(f"_{r.requested_time}.parquet")]
        keys = pq.read_table(f, columns=["_hoodie_record_key"]).column(0).to_pylist()
        return r, keys, pq.ParquetFile(f).metadata.metadata[BLOOM]

    # updates (including losing ones) and inserts: continued
    upd = [ids[i] for i in rng.choice(n, 500, replace=False)]
    new = [f"n{i:07d}" for i in range(300)]
    ts = np.concatenate([np.where(np.arange(500) % 5 == 0, -1, 1), np.ones(300)]).astype(np.int64)
    r, keys, got = step(pa.table({"id": upd + new, "ts": pa.array(ts), "v": pa.array(np.arange(800))}), "upsert")
    assert (r.num_updates, r.num_inserts) == (400, 300)  # the 100 with a lower ts lose
    assert keys == ids + new
    assert got == fresh_filter(tmp_path, "f1", keys)

    # a delete in the slice: built anew
    gone = set(rng.choice(keys, 40, replace=False).tolist())
    r = HudiTable(str(path)).delete_keys(sorted(gone))
    [f] = [f for f in glob.glob(str(path / "*.parquet")) if f.endswith(f"_{r.requested_time}.parquet")]
    keys2 = pq.read_table(f, columns=["_hoodie_record_key"]).column(0).to_pylist()
    assert keys2 == [k for k in keys if k not in gone]
    assert pq.ParquetFile(f).metadata.metadata[BLOOM] == fresh_filter(tmp_path, "f2", keys2)

    # inserts past 120,000 keys (the round-robin phase), then more in it: continued each time
    for round_, count in enumerate([52_000, 3_000]):
        more = [f"m{round_}-{i:06d}" for i in range(count)]
        r, keys3, got = step(pa.table({"id": more, "ts": pa.array(np.ones(count, np.int64)),
                                       "v": pa.array(np.arange(count))}), "upsert")
        assert r.num_inserts == count
        assert keys3 == keys2 + more
        assert got == fresh_filter(tmp_path, f"f3-{round_}", keys3)
        keys2 = keys3
    check(path)
