"""Bulk-insert (append) file sizing by compressed size (src/table/write_plan.h).

Rule under test: a partition's compressed data is estimated from a sample and split evenly into
ceil(data / hoodie.parquet.max.file.size) files, so a partition holding at least
hoodie.parquet.small.file.limit of data gets no file under the limit unless every split under
the maximum has one.

Oracles: pyarrow reads the written Parquet footers (column-chunk bytes) and rows back; the file
sizes on disk; the commit metadata of the following upsert (which file groups it wrote, by
Hudi's small-file rule); the conformance checker ../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import glob
import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring

MAX = 4_000_000
LIMIT = 3_000_000
# gzip: the row sizes below (~48 bytes a row compressed) are gzip's; zstd is the default on version 8
OPTS = {"hoodie.parquet.max.file.size": str(MAX), "hoodie.parquet.small.file.limit": str(LIMIT),
        "hoodie.parquet.compression.codec": "gzip"}
# Estimation error allowed (the sample's bytes per row against the whole partition's).
TOL = 0.05


def check(table_dir) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SKIP parquet" not in r.stdout


def data(rows_per_part: dict, seed: int, prefix: str = "k") -> pa.Table:
    """Rows with an incompressible payload (random hex, ~half its size under gzip)."""
    rng = np.random.default_rng(seed)
    ids, parts, payload, seq = [], [], [], []
    for p, n in rows_per_part.items():
        ids += [f"{prefix}{p}{i:07d}" for i in range(n)]
        parts += [p] * n
        payload += [rng.bytes(32).hex() for _ in range(n)]
        seq += list(rng.integers(0, 1 << 62, n))
    perm = rng.permutation(len(ids))  # input order is not key order
    t = pa.table({"id": ids, "p": parts, "payload": payload, "seq": pa.array(seq, pa.int64())})
    return t.take(pa.array(perm))


def base_files(path) -> dict:
    """partition -> {file id: [base file paths]}"""
    out: dict = defaultdict(lambda: defaultdict(list))
    for f in glob.glob(os.path.join(str(path), "**", "*.parquet"), recursive=True):
        if "/.hoodie/" in f:
            continue
        part = os.path.relpath(os.path.dirname(f), str(path))
        out[part][os.path.basename(f).split("_")[0]].append(f)
    return out


def data_bytes(f: str) -> int:
    """Column-chunk bytes (pages with headers, no footer): what the rule sizes."""
    md = pq.read_metadata(f)
    return sum(md.row_group(g).column(k).total_compressed_size
               for g in range(md.num_row_groups) for k in range(md.num_columns))


def commit_stats(path, instant: str) -> list:
    (f,) = glob.glob(os.path.join(str(path), ".hoodie", "timeline", f"{instant}_*.commit"))
    from fastavro import reader
    with open(f, "rb") as fh:
        (rec,) = list(reader(fh))
    return [s for stats in rec["partitionToWriteStats"].values() for s in stats]


def test_bulk_files_sized_by_compressed_bytes(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", partition_fields="p", ordering_fields="seq")
    # ~48 bytes a row compressed. big: ~3.4 max of data (4 files of ~3.4 MB, above the
    # limit); mid: ~1.25 max, where no split into files between the limit and the maximum
    # exists: filled as Java fills them (one file at ~0.97 max, the rest in a small one) rather
    # than two small files of ~2.5 MB; small: under the limit (1 file).
    rows = {"big": 281_000, "mid": 103_000, "small": 40_000}
    src = data(rows, 11)
    r = t.append(src, OPTS)
    files = base_files(path)
    assert set(files) == {"p=big", "p=mid", "p=small"}
    assert r.files_written == sum(len(v) for v in files.values())

    for part, groups in files.items():
        paths = sorted((ps[0] for ps in groups.values()), key=lambda f: int(os.path.basename(f).split("_")[1].split("-")[0]))
        assert all(len(ps) == 1 for ps in groups.values())
        sizes = [data_bytes(f) for f in paths]
        total = sum(sizes)
        # (a) the fewest files that keep every file's data under the maximum ...
        assert len(paths) == max(1, math.ceil(total / MAX)), (part, sizes)
        for f, s in zip(paths, sizes):
            assert s <= MAX * (1 + TOL), (part, f, s)
        counts = [pq.read_metadata(f).num_rows for f in paths]
        avoidable = math.ceil(total / MAX) <= total // LIMIT
        if avoidable or len(paths) == 1:
            # ... evenly split (equal row counts, +-1), none under the small-file limit when some
            # split avoids it
            assert max(counts) - min(counts) <= 1, counts
            if avoidable:
                for f, s in zip(paths, sizes):
                    assert os.path.getsize(f) >= LIMIT and s >= LIMIT * (1 - TOL), (part, f, s)
        else:
            # ... else every file but the last filled to ~0.97 of the maximum (above the limit),
            # the last small and holding the rest
            assert len(set(counts[:-1])) == 1 and counts[-1] < counts[0], counts
            for s in sizes[:-1]:
                assert LIMIT <= s and abs(s - 0.97 * MAX) <= MAX * TOL, (part, sizes)
            assert sizes[-1] < LIMIT, (part, sizes)
    assert len(files["p=big"]) == 4 and len(files["p=mid"]) == 2 and len(files["p=small"]) == 1
    assert all(data_bytes(ps[0]) >= LIMIT * 1.05 for ps in files["p=big"].values())

    # (b) the row set read back by pyarrow from the files themselves
    back = pa.concat_tables([pq.read_table(f, columns=["_hoodie_record_key", "id", "payload", "seq"])
                             for groups in files.values() for ps in groups.values() for f in ps])
    assert back.column("_hoodie_record_key").to_pylist() != []
    got = sorted(zip(back.column("id").to_pylist(), back.column("payload").to_pylist(),
                     back.column("seq").to_pylist()))
    want = sorted(zip(src.column("id").to_pylist(), src.column("payload").to_pylist(),
                      src.column("seq").to_pylist()))
    assert got == want
    check(path)

    # (c) new keys: into "big" a new file group (no bulk-load file there is small), into
    # "small" the small file's group (Hudi's small-file rule, which stays).
    before = {p: set(g) for p, g in files.items()}
    new = data({"big": 500, "small": 300}, 12, prefix="n")
    u = HudiTable(str(path)).upsert(new, OPTS)
    assert u.num_inserts == 800 and u.num_updates == 0
    stats = commit_stats(path, u.requested_time)
    by_part = defaultdict(list)
    for s in stats:
        by_part[s["partitionPath"]].append(s)
    (big,) = by_part["p=big"]
    assert big["fileId"] not in before["p=big"] and big["prevCommit"] == "null" and big["numInserts"] == 500
    (small,) = by_part["p=small"]
    assert small["fileId"] in before["p=small"] and small["numInserts"] == 300
    after = base_files(path)
    for fid in before["p=big"]:
        assert len(after["p=big"][fid]) == 1  # no bulk-load file of "big" was rewritten
    assert set(after["p=big"]) == before["p=big"] | {big["fileId"]}
    check(path)


def test_one_file_when_it_fits(tmp_path):
    # In memory the rows exceed the maximum, compressed they fit: one file (the old rule
    # made two).
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id")
    n = 20_000
    src = pa.table({"id": [f"k{i:06d}" for i in range(n)], "v": ["same text " * 10] * n})
    r = t.append(src, {"hoodie.parquet.max.file.size": "1000000"})
    assert r.files_written == 1
    (f,) = [f for f in glob.glob(os.path.join(str(path), "*.parquet"))]
    assert pq.read_metadata(f).num_rows == n
    check(path)


def test_parallel_write_same_commit_as_sequential(tmp_path):
    # The files are written on 2 threads by default; one thread must give the same commit:
    # write stats in task order, the same rows per file, the same counters.
    src = data({"big": 120_000, "mid": 60_000, "small": 5_000}, 13)
    opts = {"hoodie.parquet.max.file.size": "1500000"}
    got = {}
    for threads in ("1", "2"):
        path = tmp_path / f"t{threads}"
        t = HudiTable.create(str(path), "id", partition_fields="p", ordering_fields="seq")
        r = t.append(src, {**opts, "hoodie.bulkinsert.shuffle.parallelism": threads})
        stats = commit_stats(path, r.requested_time)
        rows = []
        for s in stats:
            name = os.path.basename(s["path"])
            token = name.split("_")[1]  # <task>-1-<task>
            f = os.path.join(str(path), s["path"])
            assert os.path.getsize(f) == s["fileSizeInBytes"]
            assert pq.read_metadata(f).num_rows == s["numWrites"] == s["numInserts"]
            rows.append((s["partitionPath"], token, s["numWrites"], s["fileSizeInBytes"]))
        got[threads] = (rows, r.files_written, r.partitions_written, r.num_inserts, r.bytes_written)
        check(path)
    (rows1, *c1), (rows2, *c2) = got["1"], got["2"]
    assert [x[:3] for x in rows1] == [x[:3] for x in rows2]
    assert [x[1] for x in rows1] == [f"{i}-1-{i}" for i in range(len(rows1))]
    assert c1[:3] == c2[:3] and len(rows1) > 3
    # sizes differ only by the random file ids in _hoodie_file_name
    for a, b in zip(rows1, rows2):
        assert abs(a[3] - b[3]) <= 64, (a, b)


def test_upsert_new_file_groups_sized_by_average_record_size(tmp_path):
    """New keys that no small file takes go to new file groups of max.file.size / the table's
    average record size, as UpsertPartitioner sizes insert buckets; the average is
    ceil(bytes / records) of the newest write whose base files exceed the small-file limit,
    computed here from its commit metadata."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", partition_fields="p", ordering_fields="seq")
    mx, limit = 1_000_000, 750_000
    opts = {**OPTS, "hoodie.parquet.max.file.size": str(mx), "hoodie.parquet.small.file.limit": str(limit)}
    t.append(data({"old": 30_000}, 21), opts)  # ~1.5 MB: above the limit, two files
    stats = commit_stats(path, sorted(os.listdir(path / ".hoodie" / "timeline"))[0][:17])
    written, records = sum(s["totalWriteBytes"] for s in stats), sum(s["numWrites"] for s in stats)
    assert written > limit
    avg = -(-written // records)
    n = 40_000
    u = HudiTable(str(path)).upsert(data({"new": n}, 22, prefix="n"), opts)
    assert u.num_inserts == n
    per_file = mx // avg
    want = -(-n // per_file)
    groups = base_files(path)["p=new"]
    assert len(groups) == want, (len(groups), want, avg)
    counts = sorted(pq.read_metadata(ps[0]).num_rows for ps in groups.values())
    assert sum(counts) == n and counts[-1] - counts[0] <= 1  # an even split
    check(path)
