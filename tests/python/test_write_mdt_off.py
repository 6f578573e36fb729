"""hoodie.metadata.enable=false in a write's options turns the metadata table off, as Apache
Hudi's writers do (HoodieTable.maybeDeleteMetadataTable): hoodie.table.metadata.partitions (and
.inflight) are cleared in hoodie.properties, then .hoodie/metadata is deleted, and the write
goes on without it (footer bloom filters instead of the record index).

Oracles: the conformance checker ../shared/tools/hudi_check.py; hoodie.properties read by an
independent java.util.Properties.load in Python (below), which must give back every other
property unchanged; the rows of a plain-Python model, read back with and without listing.
Spark's view of a version-6 table turned off this way: tests/interop/test_mdt_off_engines.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiTable, HudiTableBuilder
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
OFF = {"hoodie.metadata.enable": "false"}


def check(table_dir) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def java_properties(path: Path) -> dict:
    """java.util.Properties.load for the subset Hudi writes: '#'/'!' comments, key=value lines,
    backslash escapes (\\t \\n \\r \\f \\uXXXX, any other character as itself)."""
    out = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line.strip() or line.lstrip()[0] in "#!":
            continue
        m = re.match(r"((?:\\.|[^=:\\])*)[=:](.*)", line)
        assert m, line

        def unescape(s: str) -> str:
            s = re.sub(r"\\u([0-9a-fA-F]{4})", lambda x: chr(int(x.group(1), 16)), s)
            s = re.sub(r"\\(.)", lambda x: {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(x.group(1), x.group(1)), s)
            return s.encode("utf-16", "surrogatepass").decode("utf-16")

        out[unescape(m.group(1).strip())] = unescape(m.group(2).lstrip(" \t\f"))  # Java skips it
    return out


def rows(ids, v) -> pa.Table:
    return pa.table({"id": [f"k{i:04d}" for i in ids], "region": [["eu", "us"][i % 2] for i in ids],
                     "v": pa.array([v] * len(ids), pa.int64())})


def model_rows(model: dict) -> list:
    return sorted((k, r, v) for k, (r, v) in model.items())


def read_rows(path, **opts) -> list:
    t = HudiTableBuilder.from_base_uri(str(path)).with_hudi_options(opts).build() if opts else HudiTable(str(path))
    got = pa.Table.from_batches(t.read())
    return sorted(zip(got.column("id").to_pylist(), got.column("region").to_pylist(), got.column("v").to_pylist()))


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_write_turns_the_metadata_table_off(tmp_path, table_type):
    path = tmp_path / f"t_{table_type}"
    t = HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type,
                         hudi_options={"hoodie.metadata.index.column.stats.enable": "true"})
    t.append(rows(range(40), 1))
    model = {f"k{i:04d}": (["eu", "us"][i % 2], 1) for i in range(40)}
    props_file = path / ".hoodie" / "hoodie.properties"
    before = java_properties(props_file)
    assert before["hoodie.table.metadata.partitions"] != ""
    assert (path / ".hoodie" / "metadata").is_dir()

    # Without the option the metadata table stays and is kept current.
    t.upsert(rows([0, 1], 2))
    model.update({"k0000": ("eu", 2), "k0001": ("us", 2)})
    assert (path / ".hoodie" / "metadata").is_dir()

    r = t.upsert(rows([2, 3, 100], 3), OFF)
    assert (r.num_inserts, r.num_updates) == (1, 2)
    model.update({"k0002": ("eu", 3), "k0003": ("us", 3), "k0100": ("eu", 3)})
    assert not (path / ".hoodie" / "metadata").exists()
    assert not (path / ".hoodie" / "hoodie.properties.backup").exists()
    after = java_properties(props_file)
    assert after["hoodie.table.metadata.partitions"] == ""
    assert after["hoodie.table.metadata.partitions.inflight"] == ""
    changed = {"hoodie.table.metadata.partitions", "hoodie.table.metadata.partitions.inflight"}
    assert {k: v for k, v in after.items() if k not in changed} == \
        {k: v for k, v in before.items() if k not in changed}
    assert t.properties()["hoodie.table.metadata.partitions"] == ""
    check(path)
    assert read_rows(path) == model_rows(model)
    assert read_rows(path, **OFF) == model_rows(model)

    # Later writes, with or without the option, find their keys without it.
    t2 = HudiTable(str(path))
    t2.upsert(rows([4, 101], 4))
    t2.delete_keys(["k0005"])
    t2.upsert(rows([6], 5), OFF)
    model.update({"k0004": ("eu", 4), "k0101": ("us", 4), "k0006": ("eu", 5)})
    del model["k0005"]
    assert not (path / ".hoodie" / "metadata").exists()
    check(path)
    assert read_rows(path) == model_rows(model)


def test_append_and_delete_turn_it_off_too(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type="mor")
    t.append(rows(range(10), 1))
    t.delete("id = 'k0001'", OFF)
    assert not (path / ".hoodie" / "metadata").exists()
    t.append(rows(range(10, 12), 1), OFF)
    check(path)
    want = [(f"k{i:04d}", ["eu", "us"][i % 2], 1) for i in range(12) if i != 1]
    assert read_rows(path) == want


def test_properties_round_trip_escapes(tmp_path):
    """Values Java escapes (':', '=', '#', '!', a leading space, non-ASCII) survive the rewrite."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type="cow", table_name="t")
    t.append(rows(range(3), 1))
    props_file = path / ".hoodie" / "hoodie.properties"
    extra = "\n".join([
        r"x.colon=a\:b\=c\#d\!e",
        r"x.lead=\ lead and trail ",
        r"x.unicode=caf\u00E9 \u20AC \uD83D\uDE00",
        r"x.tab=a\tb",
    ])
    props_file.write_text(props_file.read_text() + extra + "\n", encoding="latin-1")
    before = java_properties(props_file)
    assert before["x.unicode"] == "café € \U0001F600" and before["x.lead"] == " lead and trail "
    HudiTable(str(path)).upsert(rows([1], 2), OFF)
    after = java_properties(props_file)
    assert before["hoodie.table.metadata.partitions"] != "" and after["hoodie.table.metadata.partitions"] == ""
    assert after["x.lead"] == " lead and trail "  # rewritten, read back by Java's rules
    for k in ("x.colon", "x.lead", "x.unicode", "x.tab", "hoodie.table.name", "hoodie.table.checksum"):
        assert after[k] == before[k], k
    assert HudiTable(str(path)).properties()["x.unicode"] == "café € \U0001F600"
    check(path)


def test_spark_written_properties_rewritten_as_spark_wrote_them(tmp_path):
    """A version-6 table Spark wrote (its hoodie.properties escaped by Java, create schema
    included), made to list a metadata table: the write that turns it off rewrites every other
    line byte for byte as Java's Properties.store wrote it. The table stays writable and readable."""
    import shutil

    from hudi_fixtures import table_path

    path = tmp_path / "v6"
    shutil.copytree(table_path("sample_table/cow/v6_complexkeygen_hivestyle"), path)
    props_file = path / ".hoodie" / "hoodie.properties"
    spark_lines = [ln for ln in props_file.read_text(encoding="latin-1").splitlines() if not ln.startswith("#")]
    assert any("\\:" in ln for ln in spark_lines)  # Java escaped the create schema's colons
    props_file.write_text(props_file.read_text(encoding="latin-1") + "hoodie.table.metadata.partitions=files\n",
                          encoding="latin-1")
    t = HudiTable(str(path))
    before = pa.Table.from_batches(t.read())
    one = before.slice(0, 1).drop_columns([c for c in before.column_names if c.startswith("_hoodie_")])
    with pytest.raises(Exception, match="hoodie.metadata.enable=false"):
        t.upsert(one)
    t.upsert(one, OFF)
    lines = [ln for ln in props_file.read_text(encoding="latin-1").splitlines() if not ln.startswith("#")]
    assert lines == spark_lines + ["hoodie.table.metadata.partitions=", "hoodie.table.metadata.partitions.inflight="]
    after = pa.Table.from_batches(HudiTable(str(path)).read())
    assert sorted(after.column("id").to_pylist()) == sorted(before.column("id").to_pylist())
    check(path)


def test_index_hudi_c_does_not_keep_refused_unless_turned_off(tmp_path):
    """A metadata table with an index hudi-c does not maintain (here an expression index listed in
    the properties): writes are refused, naming it and the option; with the option the table is
    written without its metadata table."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type="cow")
    t.append(rows(range(4), 1))
    props_file = path / ".hoodie" / "hoodie.properties"
    text = props_file.read_text(encoding="latin-1")
    assert "hoodie.table.metadata.partitions=files,record_index\n" in text
    props_file.write_text(text.replace("hoodie.table.metadata.partitions=files,record_index\n",
                                       "hoodie.table.metadata.partitions=expr_index_x,files,record_index\n"),
                          encoding="latin-1")
    t = HudiTable(str(path))
    with pytest.raises(Exception, match=r"expr_index_x.*hoodie\.metadata\.enable=false"):
        t.upsert(rows([1], 2))
    assert (path / ".hoodie" / "metadata").is_dir()
    t.upsert(rows([1], 2), OFF)
    assert not (path / ".hoodie" / "metadata").exists()
    check(path)
    assert read_rows(path) == [("k0000", "eu", 1), ("k0001", "us", 2), ("k0002", "eu", 1), ("k0003", "us", 1)]


def test_option_values_and_a_directory_left_behind(tmp_path):
    """hoodie.metadata.enable takes true or false only (a typo neither keeps nor deletes the
    metadata table silently); a metadata directory no longer listed (a crash between Hudi's
    two steps) is deleted by the next write that turns it off."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type="mor")
    t.append(rows(range(4), 1))
    with pytest.raises(Exception, match="hoodie.metadata.enable must be true or false, not 'no'"):
        t.upsert(rows([1], 2), {"hoodie.metadata.enable": "no"})
    assert (path / ".hoodie" / "metadata").is_dir()
    t.upsert(rows([1], 2), {"hoodie.metadata.enable": "TRUE"})
    assert (path / ".hoodie" / "metadata").is_dir()
    props_file = path / ".hoodie" / "hoodie.properties"
    text = props_file.read_text(encoding="latin-1")
    props_file.write_text(text.replace("hoodie.table.metadata.partitions=files,record_index\n",
                                       "hoodie.table.metadata.partitions=\n"), encoding="latin-1")
    HudiTable(str(path)).upsert(rows([2], 3), OFF)
    assert not (path / ".hoodie" / "metadata").exists()
    check(path)
    assert read_rows(path) == [("k0000", "eu", 1), ("k0001", "us", 2), ("k0002", "eu", 3), ("k0003", "us", 1)]
