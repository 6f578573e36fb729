"""hudi-c keeps a Spark table's secondary indexes current (Hudi 1.1 tables made with CREATE INDEX).

The tables are copies of the Spark 1.1 fixtures v9_txns_simple_meta, copy-on-write and merge-on-read,
with two secondary indexes (merchant_name, a string; txn_date, a date) besides column_stats,
partition_stats and the record index. After each hudi-c upsert / delete the live entries of each
index, merged by the conformance checker's own HFile/log reader, must equal the entries built
independently from a pyarrow read of the snapshot: escape(value) + "$" + escape(record key) for every
row (escape puts a backslash before backslash, '$' and NUL; a null value is the NUL character; a date is
its epoch day), which is what Spark's index holds for the fixture as written. hudi_check passes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES, table_path

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
sys.path.insert(0, str(CHECKER.parent))
import hudi_check as hc  # noqa: E402

INDEXES = {"secondary_index_merchant_idx": "merchant_name", "secondary_index_txn_date_idx": "txn_date"}


def check(path: Path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace("$", "\\$").replace("\0", "\\\0")


def model(path: Path) -> dict[str, set[str]]:
    snap = pa.Table.from_batches(HudiTable(str(path)).read())
    out = {}
    for part, col in INDEXES.items():
        keys = snap.column("_hoodie_record_key").to_pylist()
        vals = snap.column(col)
        if pa.types.is_date32(vals.type):
            vals = vals.cast(pa.int32())
        out[part] = {("\0" if v is None else esc(str(v))) + "$" + esc(k) for k, v in zip(keys, vals.to_pylist())}
    return out


def stored(path: Path) -> dict[str, set[str]]:
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out = {}
    for part in INDEXES:
        out[part] = set()
        for fid in hc._metadata_groups(ctx.mdt, part):
            for k, v in ctx.merged_group(part, fid).items():
                assert v["type"] == 7, (k, v)
                if not v["SecondaryIndexMetadata"]["isDeleted"]:
                    out[part].add(k)
    return out


def spark_table(tmp_path: Path, kind: str) -> Path:
    dst = tmp_path / "t"
    shutil.copytree(table_path(f"sample_table/{kind}/v9_txns_simple_meta"), dst)
    props = (dst / ".hoodie" / "hoodie.properties").read_text()
    assert "secondary_index_merchant_idx,secondary_index_txn_date_idx" in props
    # The oracle agrees with Spark's own index as the fixture holds it.
    assert stored(dst) == model(dst)
    return dst


def data_rows(path: Path, ids: list[str]) -> pa.Table:
    snap = pa.Table.from_batches(HudiTable(str(path)).read())
    data = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")])
    return data.filter(pc.is_in(data.column("txn_id"), pa.array(ids))).sort_by("txn_id")


def with_column(t: pa.Table, name: str, values) -> pa.Table:
    i = t.schema.get_field_index(name)
    return t.set_column(i, t.schema.field(i), pa.array(values, t.schema.field(i).type))


@pytest.mark.parametrize("kind", ["cow", "mor/avro"])
def test_upserts_and_deletes_keep_secondary_indexes(tmp_path, kind):
    path = spark_table(tmp_path, kind)
    before = stored(path)
    # Updates: a value with the characters escaping protects, a value made null, an unchanged one
    # (TXN-008: nothing to write for it), a changed date; and a new key.
    rows = data_rows(path, ["TXN-001", "TXN-008", "TXN-013", "TXN-015"])
    rows = with_column(rows, "txn_ts", [1800000000000] * 4)
    rows = with_column(rows, "merchant_name", ["Zed$\\x\0", "Grab", None, "Japan Airlines"])
    rows = with_column(rows, "txn_date", [19737, 19738, 19741, 20000])
    new = with_column(with_column(rows.slice(0, 1), "txn_id", ["TXN-100"]), "merchant_name", ["Amazon"])
    r = HudiTable(str(path)).upsert(pa.concat_tables([rows, new]))
    assert (r.num_updates, r.num_inserts) == (4, 1)
    after = stored(path)
    assert after == model(path)
    assert "Zed\\$\\\\x\\\0$TXN-001" in after["secondary_index_merchant_idx"]
    assert "\0$TXN-013" in after["secondary_index_merchant_idx"]
    assert "Amazon$TXN-001" in before["secondary_index_merchant_idx"]
    assert "Amazon$TXN-001" not in after["secondary_index_merchant_idx"]
    assert "20000$TXN-015" in after["secondary_index_txn_date_idx"]
    check(path)

    HudiTable(str(path)).delete_keys(["TXN-003", "TXN-100"])
    after = stored(path)
    assert after == model(path)
    assert not any(k.endswith("$TXN-003") or k.endswith("$TXN-100") for s in after.values() for k in s)
    check(path)

    # A lower ordering value does not overwrite the stored row (EVENT_TIME_ORDERING), so the index
    # keeps the stored value too.
    stale = with_column(with_column(data_rows(path, ["TXN-012"]), "txn_ts", [1]), "merchant_name", ["Stale"])
    HudiTable(str(path)).upsert(stale)
    after = stored(path)
    assert after == model(path)
    assert not any(k.startswith("Stale$") for k in after["secondary_index_merchant_idx"])
    check(path)


def test_overwrite_refused_and_nothing_written(tmp_path):
    path = spark_table(tmp_path, "cow")
    before = sorted(p.relative_to(path) for p in path.rglob("*"))
    rows = data_rows(path, ["TXN-001"])
    with pytest.raises(Exception, match="secondary indexes: overwrite is refused"):
        HudiTable(str(path)).overwrite(rows)
    assert sorted(p.relative_to(path) for p in path.rglob("*")) == before


def test_unsupported_index_column_type_refused(tmp_path):
    """Hudi 1.1 indexes doubles by Java's Double.toString, which hudi-c does not write: a table whose
    index is on a double column is refused before anything is written, naming the index and column."""
    path = spark_table(tmp_path, "cow")
    idx = path / ".hoodie" / ".index_defs" / "index.json"
    idx.write_text(idx.read_text().replace('"sourceFields" : [ "merchant_name" ]', '"sourceFields" : [ "is_international" ]'))
    before = sorted(p.relative_to(path) for p in path.rglob("*"))
    with pytest.raises(Exception, match="secondary_index_merchant_idx: column 'is_international' has Arrow type 'b'"):
        HudiTable(str(path)).upsert(data_rows(path, ["TXN-001"]))
    assert sorted(p.relative_to(path) for p in path.rglob("*")) == before
