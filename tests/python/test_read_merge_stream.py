"""Merge-on-read slices stream their base file past the log records
(src/table/read_slice.c run_merge_stream): log records are read and indexed
by key first, then each base batch is decided and emitted. The result must
be the one of letting every record compete per key in order (base rows,
then log records in log order; greatest ordering value wins, ties to the
later record; a delete without ordering removes older writes).

Oracle: that rule computed here in plain Python from the rows written,
independent of the library. Cases: log records that win and lose against
the base row, a key updated twice in the logs, keys only in the logs,
deletes of base-only, updated and log-only keys, a projection, a filter,
and a base file whose keys repeat (the in-memory fallback, whose rows then
compete among themselves too).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hudi import HudiReadOptions, HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"

N = 6000  # several 8192-row batches are not needed: batch size is lowered below


def rows(ids, ts, tag):
    return pa.table({
        "id": pa.array([f"k{i:05d}" for i in ids], pa.string()),
        "ts": pa.array([int(x) for x in ts], pa.int64()),
        "v": pa.array([f"{tag}-{i}" for i in ids], pa.string()),
        "n": pa.array([None if i % 9 == 0 else i * 3 for i in ids], pa.int64()),
    })


def fold(model: dict, t: pa.Table) -> None:
    """Records compete per key in write order: the greatest ts wins, ties
    to the later record."""
    for r in t.to_pylist():
        cur = model.get(r["id"])
        if cur is None or r["ts"] >= cur["ts"]:
            model[r["id"]] = r


def read(path, **opts) -> list[dict]:
    o = HudiReadOptions().with_hudi_options({"hoodie.read.stream.batch_size": "500", **opts})
    got = pa.Table.from_batches(HudiTable(str(path)).read(o))
    return sorted(got.select(["id", "ts", "v", "n"]).to_pylist(), key=lambda r: r["id"])


def check_table(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def make(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor")
    model: dict = {}
    base = rows(range(N), [10] * N, "base")
    t.append(base)
    fold(model, base)
    # Round 1: updates that win (ts 20), that lose (ts 5), and new keys.
    win = list(range(0, N, 7))
    lose = list(range(3, N, 11))
    new = list(range(N, N + 300))
    u1 = pa.concat_tables([rows(win, [20] * len(win), "u1"), rows(lose, [5] * len(lose), "u1lose"),
                           rows(new, [10] * len(new), "u1new")])
    HudiTable(str(path)).upsert(u1)
    fold(model, u1)
    # Round 2: keys again (log twice), a tie (later wins), new keys again.
    again = list(range(0, N, 14)) + list(range(N, N + 300, 3))
    tie = list(range(1, N, 13))
    u2 = pa.concat_tables([rows(again, [15] * len(again), "u2"), rows(tie, [10] * len(tie), "u2tie")])
    HudiTable(str(path)).upsert(u2)
    fold(model, u2)
    # Deletes: base-only, updated and log-only keys.
    gone = [f"k{i:05d}" for i in [2, 4, 0, 14, 7, N, N + 3, N + 1]]
    HudiTable(str(path)).delete_keys(gone)
    for k in gone:
        model.pop(k, None)
    return path, model


def expected(model: dict) -> list[dict]:
    return sorted(model.values(), key=lambda r: r["id"])


def test_streamed_merge_matches_the_rule(tmp_path):
    path, model = make(tmp_path)
    check_table(path)
    assert len(list(path.glob("**/.*.log.*"))) > 0  # the slice has log files
    want = expected(model)
    assert read(path) == want
    assert read(path, **{"hoodie.metadata.enable": "false"}) == want
    assert read(path, **{"hoodie.read.parallelism": "1"}) == want
    # Filter and projection go through the same emit.
    o = HudiReadOptions().with_filters([("ts", ">=", "15")]).with_hudi_options({"hoodie.read.stream.batch_size": "333"})
    got = pa.Table.from_batches(HudiTable(str(path)).read(o))
    assert sorted(got.select(["id", "ts"]).to_pylist(), key=lambda r: r["id"]) == \
        [{"id": r["id"], "ts": r["ts"]} for r in want if r["ts"] >= 15]


def test_repeated_base_keys_compete_among_themselves(tmp_path):
    path, model = make(tmp_path)
    check_table(path)
    # Rewrite the base file with repeated keys (as an insert that kept
    # duplicates leaves them): k00100 (no log record) again with ts 12,
    # k00021 (updated to 20 in the log) again with ts 30.
    base = max(path.glob("*.parquet"), key=lambda p: p.stem.rsplit("_", 1)[1])  # the latest slice's
    t = pq.read_table(base)
    assert "k00100" in t["id"].to_pylist()
    extra = t.filter(pa.compute.is_in(t["id"], pa.array(["k00100", "k00021"])))
    extra = extra.set_column(extra.schema.get_field_index("ts"), "ts",
                             pa.array([12 if k == "k00100" else 30 for k in extra["id"].to_pylist()], pa.int64()))
    extra = extra.set_column(extra.schema.get_field_index("v"), "v", pa.array(["dup"] * extra.num_rows))
    pq.write_table(pa.concat_tables([t, extra]), base)
    model["k00100"] = {**model["k00100"], "ts": 12, "v": "dup"}
    model["k00021"] = {**model["k00021"], "ts": 30, "v": "dup"}
    # Listing: the file's new size is read from storage.
    assert read(path, **{"hoodie.metadata.enable": "false"}) == expected(model)


def test_many_log_keys_against_a_large_base(tmp_path):
    """Most base rows meet no log record and are answered by the log keys'
    bit filter (read_slice.c filter_may_have) without the key maps: with
    ~36,000 log and delete keys over 150,000 base rows (a filter of 2^20
    bits), every update and delete must still reach its base row."""
    path = tmp_path / "big"
    n = 150_000
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor")
    model: dict = {}
    base = rows(range(n), [10] * n, "base")
    t.append(base)
    fold(model, base)
    up = list(range(0, n, 5))  # 30,000 keys: 2 in 3 win (ts 20), 1 in 3 lose (ts 5)
    u = rows(up, [20 if i % 3 else 5 for i in up], "u")
    HudiTable(str(path)).upsert(u)
    fold(model, u)
    gone = [f"k{i:05d}" for i in range(1, n, 25)]  # 6,000 base-only keys
    HudiTable(str(path)).delete_keys(gone)
    for k in gone:
        model.pop(k, None)
    check_table(path)
    assert len(list(path.glob("**/.*.log.*"))) > 0
    got = pa.Table.from_batches(HudiTable(str(path)).read())
    assert got.num_rows == len(model)
    assert sorted(got.select(["id", "ts", "v", "n"]).to_pylist(), key=lambda r: r["id"]) == expected(model)
