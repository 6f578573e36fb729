"""Tests of the harness itself: the oracle, the comparison, determinism, and that a wrong table
fails the run. Run with the bench environment: .venv-bench/bin/python -m pytest bench/upsert
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import adapters  # noqa: E402
import oracle  # noqa: E402
import worker  # noqa: E402
from common import compare_tables, key_strings  # noqa: E402
from scenarios import SCENARIOS, ensure_data  # noqa: E402


def test_oracle_upsert_and_delete_composite_keys() -> None:
    base = pa.table({"a": [1, 1, 2], "b": [10, 20, 10], "v": ["x", "y", "z"]})
    up = pa.table({"a": [1, 3], "b": [20, 30], "v": ["Y", "new"]})
    dele = pa.table({"a": [2], "b": [10]})
    got = oracle.expected_state(base, [(up, dele)], ["a", "b"])
    assert got.to_pylist() == [{"a": 1, "b": 10, "v": "x"}, {"a": 1, "b": 20, "v": "Y"}, {"a": 3, "b": 30, "v": "new"}]


@pytest.mark.parametrize("scenario", ["rag-chunks", "tpcds-web-returns"])
def test_oracle_fast_path_equals_stepwise(tmp_path: Path, scenario: str) -> None:
    d = ensure_data(tmp_path, scenario, 0.001, log=lambda m: None)
    meta = json.loads((d / "meta.json").read_text())
    base = pq.read_table(d / "base.parquet")
    rounds = [(pq.read_table(d / r["upsert"]), pq.read_table(d / r["delete"])) for r in meta["rounds"]]
    fast = oracle.expected_state(base, rounds, meta["keys"])
    assert fast.equals(oracle.expected_state_stepwise(base, rounds, meta["keys"]))
    assert fast.num_rows != base.num_rows or scenario == "rag-chunks"


def test_key_strings_distinguish_composite_keys() -> None:
    t = pa.table({"a": [1, 11], "b": [11, 1]})
    assert key_strings(t, ["a", "b"]).to_pylist() == ["1\x1f11", "11\x1f1"]


def test_compare_accepts_reordered_and_large_types() -> None:
    e = pa.table({"k": ["a", "b"], "v": [[1.0, 2.0], [3.0]]})
    a = pa.table({"k": pa.array(["b", "a"], pa.large_string()), "v": pa.array([[3.0], [1.0, 2.0]], pa.large_list(pa.float64()))})
    assert compare_tables(a, e, ["k"], "t") is None


@pytest.mark.parametrize("mutate, needle", [
    (lambda t: t.slice(1), "rows"),
    (lambda t: t.set_column(1, "v", pa.array([[1.0, 2.5], [3.0]])), "column 'v'"),
    (lambda t: t.set_column(0, "k", pa.array(["a", "c"])), "key"),
    (lambda t: t.set_column(1, "v", pa.array([None, [3.0]], pa.list_(pa.float64()))), "column 'v'"),
])
def test_compare_reports_differences(mutate, needle) -> None:
    e = pa.table({"k": ["a", "b"], "v": [[1.0, 2.0], [3.0]]})
    msg = compare_tables(mutate(e), e, ["k"], "t")
    assert msg is not None and needle in msg


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_generation_is_deterministic(tmp_path: Path, scenario: str) -> None:
    d1 = ensure_data(tmp_path / "one", scenario, 0.001, log=lambda m: None)
    d2 = ensure_data(tmp_path / "two", scenario, 0.001, log=lambda m: None)
    meta = json.loads((d1 / "meta.json").read_text())
    for name in ["base.parquet", "expected.parquet"] + [r["upsert"] for r in meta["rounds"]] + [r["delete"] for r in meta["rounds"]]:
        assert pq.read_table(d1 / name).equals(pq.read_table(d2 / name)), name
    assert meta["expected_rows"] == pq.read_metadata(d1 / "expected.parquet").num_rows


class _ForgetsDeletes(adapters.DeltaAdapter):
    name = "delta-rs that skips deletes"

    def delete(self, keys: pa.Table) -> None:
        return None


def _run_worker(monkeypatch, tmp_path: Path, engine: str, data: Path) -> dict:
    out = tmp_path / f"{engine}.json"
    monkeypatch.setattr(sys, "argv", ["worker.py", "--engine", engine, "--data", str(data),
                                      "--table-root", str(tmp_path / engine), "--out", str(out)])
    assert worker.main() == 0
    return json.loads(out.read_text())


def test_wrong_table_fails_and_right_one_passes(monkeypatch, tmp_path: Path) -> None:
    data = ensure_data(tmp_path / "w", "training-set", 0.001, log=lambda m: None)
    monkeypatch.setitem(adapters.ADAPTERS, "broken", _ForgetsDeletes)
    bad = _run_worker(monkeypatch, tmp_path, "broken", data)
    assert bad["status"] == "failed"
    assert any("end state" in f for f in bad["failures"])
    assert any("incremental" in f for f in bad["failures"])  # the deleted keys are missing from the feed
    good = _run_worker(monkeypatch, tmp_path, "delta-rs", data)
    assert good["status"] == "ok", good.get("failures") or good.get("reason")
    assert all(c["ok"] for c in good["checks"])
    kinds = [o["op"] for o in good["ops"]]
    assert kinds.count("upsert") == 5 and kinds.count("delete") == 5 and kinds.count("time_travel_read") == 5
    for o in good["ops"]:  # user and system CPU apart, and the machine's free memory and reclaim counters
        assert abs(o["cpu_user_seconds"] + o["cpu_system_seconds"] - o["cpu_seconds"]) <= 0.002, o
        before, after = o["machine_before"], o["machine_after"]
        assert 0 < before["mem_free_bytes"] <= before["mem_total_bytes"]
        if os.path.exists("/proc/vmstat"):
            for k in ("vm_pgscan_direct", "vm_pgsteal_direct", "vm_allocstall"):
                assert 0 <= before[k] <= after[k], (k, before, after)


def test_hudi_adapter_detects_the_write_path_by_feature(monkeypatch) -> None:
    import types

    fake = types.ModuleType("hudi")
    fake.__version__ = "9.9"

    class Old:
        pass

    fake.HudiTable = Old
    monkeypatch.setitem(sys.modules, "hudi", fake)
    assert "has no HudiTable.create" in adapters.HudiCAdapter.availability()

    class New:
        @classmethod
        def create(cls, *a, **k):  # pragma: no cover - never called
            raise AssertionError

    fake.HudiTable = New
    reason = adapters.HudiCAdapter.availability()
    assert "has HudiTable.create but no HudiTable.upsert/delete_keys" in reason
    with pytest.raises(adapters.EngineNotAvailable, match="HudiCAdapter.create"):
        adapters.HudiCAdapter(Path("/nonexistent"), ["k"], False).create(pa.schema([("k", pa.int64())]))

    class Full(New):
        def upsert(self, *a, **k):  # pragma: no cover - never called
            raise AssertionError

        def delete_keys(self, *a, **k):  # pragma: no cover - never called
            raise AssertionError

    fake.HudiTable = Full
    assert adapters.HudiCAdapter.availability() is None
    assert adapters.HudiCCowAdapter.availability() is None


def test_hudi_adapter_reports_why_it_is_unavailable(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "hudi", None)  # import hudi raises ImportError
    for cls in (adapters.HudiCAdapter, adapters.HudiCCowAdapter):
        reason = cls.availability()
        assert reason and "not importable" in reason and "--with-hudi" in reason
    assert issubclass(adapters.EngineNotAvailable, NotImplementedError)
    assert not issubclass(pa.lib.ArrowNotImplementedError, adapters.EngineNotAvailable)


def test_hudi_adapter_formats_record_keys_as_hudi_key_generators_do() -> None:
    # SIMPLE key generator: the value alone; COMPLEX (several fields): field:value pairs joined by ','
    one = adapters.HudiCAdapter(Path("/nonexistent"), ["id"], False)
    assert one._record_keys(pa.table({"id": pa.array([7, 12], pa.int64())})) == ["7", "12"]
    assert one._record_keys(pa.table({"id": ["doc-1#0001"]})) == ["doc-1#0001"]
    two = adapters.HudiCAdapter(Path("/nonexistent"), ["wr_item_sk", "wr_order_number"], False)
    keys = pa.table({"wr_order_number": pa.array([5, 60], pa.int64()), "wr_item_sk": pa.array([1, 2], pa.int32())})
    assert two._record_keys(keys) == ["wr_item_sk:1,wr_order_number:5", "wr_item_sk:2,wr_order_number:60"]
