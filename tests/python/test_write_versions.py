"""Tables in table versions 6, 8 and 9 (hoodie.write.table.version): create, append, upsert,
delete, update and overwrite, COW and MOR, read back.

Oracles: the plain-Python model of test_write_verbs (Hudi's merge semantics) compared with our
reader; ../shared/tools/hudi_check.py (which knows layouts 1 and 2) after every write; the
v6/v9 fixtures Spark wrote for every file name and timeline file shape: layout-1 names
(`T.commit.requested`, `T.inflight`, `T.commit` in .hoodie/), Jackson JSON commit metadata
(parsed with json, keys in Java's order, no `version`), v6 log names carrying the base file's
instant with rising versions; layout-2 Avro commits for 8 and 9 (fastavro).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import fastavro
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable, HudiUnsupportedError
from test_write_verbs import Model, check, compare, data

V6_STAT_KEYS = ["fileId", "path", "cdcStats", "prevCommit", "numWrites", "numDeletes", "numUpdateWrites",
                "numInserts", "totalWriteBytes", "totalWriteErrors", "tempPath", "partitionPath",
                "totalLogRecords", "totalLogFilesCompacted", "totalLogSizeCompacted",
                "totalUpdatedRecordsCompacted", "totalLogBlocks", "totalCorruptLogBlock", "totalRollbackBlocks",
                "fileSizeInBytes", "minEventTime", "maxEventTime", "runtimeStats"]
V6_DELTA_KEYS = V6_STAT_KEYS + ["logVersion", "logOffset", "baseFile", "logFiles", "recordsStats"]
LOG_RE = re.compile(r"^\.(?P<fid>.+)_(?P<instant>\d+)\.log\.(?P<ver>\d+)_(?P<token>\d+-\d+-\d+)$")


def props(path) -> dict:
    out = {}
    for line in (Path(path) / ".hoodie" / "hoodie.properties").read_text().splitlines():
        if line and not line.startswith("#"):
            k, _, v = line.partition("=")
            out[k] = v
    return out


def make(path, version: str, kind: str, part: str | None) -> HudiTable:
    return HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields=part, table_type=kind,
                            record_index_enabled=version != "6",
                            hudi_options={"hoodie.write.table.version": version})


def timeline_files(path, version: str) -> list[str]:
    d = Path(path) / ".hoodie" / ("timeline" if version != "6" else "")
    return sorted(f.name for f in d.iterdir() if f.is_file() and f.name != "hoodie.properties"
                  and not f.name.startswith("hoodie.properties"))


def check_timeline(path, version: str, kind: str) -> list[str]:
    """Every instant has its three files with the layout's names and content; returns the
    completed instants' requested times in order."""
    names = timeline_files(path, version)
    done = []
    for n in names:
        if version == "6":
            m = re.fullmatch(r"(\d{17})\.(commit|deltacommit|replacecommit)", n)
        else:
            m = re.fullmatch(r"(\d{17})_(\d{17})\.(commit|deltacommit|replacecommit)", n)
        if not m:
            continue
        t, action = m.group(1), m.groups()[-1]
        done.append(t)
        inflight = f"{t}.inflight" if action == "commit" else f"{t}.{action}.inflight"
        assert f"{t}.{action}.requested" in names and inflight in names, names
        raw = (Path(path) / ".hoodie" / ("timeline" if version != "6" else "") / n).read_bytes()
        if version == "6":
            assert not (Path(path) / ".hoodie" / "timeline").exists()
            assert raw[:1] == b"{" and not raw.endswith(b"\n")
            meta = json.loads(raw)
            keys = list(meta)
            want = ["partitionToWriteStats", "compacted", "extraMetadata", "operationType"]
            assert keys == want + (["partitionToReplaceFileIds"] if action == "replacecommit" else [])
            assert "schema" in meta["extraMetadata"]
            for stats in meta["partitionToWriteStats"].values():
                for s in stats:
                    is_log = ".log." in (s["path"] or "")
                    assert list(s) == (V6_DELTA_KEYS if is_log else V6_STAT_KEYS)
                    if is_log:  # prevCommit = the slice's base instant, as in the log's name
                        lm = LOG_RE.match(os.path.basename(s["path"]))
                        assert lm and s["prevCommit"] == lm["instant"] and s["logVersion"] == int(lm["ver"])
            inf = (Path(path) / ".hoodie" / inflight).read_bytes()
            assert set(json.loads(inf)) >= {"partitionToWriteStats", "compacted", "extraMetadata"}
        else:
            recs = list(fastavro.reader(__import__("io").BytesIO(raw)))
            assert len(recs) == 1 and "partitionToWriteStats" in recs[0]
    assert done == sorted(done)
    return done


def check_logs_v6(path) -> None:
    """v6 logs: named by the base file's instant (a base file of that instant exists in the same
    file group), versions 1..n without gaps per (file id, base instant)."""
    seen: dict[tuple, list[int]] = {}
    for root, _, files in os.walk(path):
        if ".hoodie" in root:
            continue
        bases = [f for f in files if f.endswith(".parquet")]
        for f in files:
            m = LOG_RE.match(f)
            if not m:
                continue
            assert any(b.startswith(m["fid"] + "_") and b.endswith(f"_{m['instant']}.parquet") for b in bases), f
            seen.setdefault((root, m["fid"], m["instant"]), []).append(int(m["ver"]))
    for vs in seen.values():
        assert sorted(vs) == list(range(1, len(vs) + 1)), vs


@pytest.mark.parametrize("version", ["6", "8", "9"])
@pytest.mark.parametrize("kind", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False])
def test_write_verbs_in_each_version(tmp_path, version, kind, partitioned):
    path = tmp_path / "t"
    part = "p" if partitioned else None
    t = make(path, version, kind, part)
    p = props(path)
    assert p["hoodie.table.version"] == version
    assert p["hoodie.timeline.layout.version"] == ("1" if version == "6" else "2")
    assert ("hoodie.table.ordering.fields" in p) == (version == "9")
    assert ("hoodie.table.precombine.field" in p) == (version != "9")
    m = Model("id", part, "ts")

    b = data(["a", "b", "c", "d"], [1, 1, 1, 1], ["x", "y", "x", "y"], [1, 2, 3, 4])
    r = t.append(b)
    m.upsert(b, r.requested_time)
    compare(path, m)

    for round_ in range(2):  # twice: MOR v6 logs then get version 2
        b = data(["a", "c", "e"], [5 + round_, 0, 2], ["x", "x", "y"], [10 + round_, 30, 50])
        r = HudiTable(str(path)).upsert(b)
        m.upsert(b, r.requested_time)
        compare(path, m)

    r = HudiTable(str(path)).delete_keys(["b", "zz"])
    m.delete_keys(["b"])
    compare(path, m)

    r = HudiTable(str(path)).update("id = 'd'", {"v": 99})
    row, _ = m.rows["d"]
    m.rows["d"] = ({**row, "v": 99}, r.requested_time)
    compare(path, m)

    done = check_timeline(path, version, kind)
    assert len(done) == 5
    if version == "6" and kind == "mor":
        check_logs_v6(path)
        logs = [f for _, _, fs in os.walk(path) for f in fs if LOG_RE.match(f)]
        assert any(LOG_RE.match(f)["ver"] == "2" for f in logs), logs
    if version != "6":
        assert (path / ".hoodie" / "metadata").is_dir()
    # the default codec of base files: gzip where older engines read (version 6), zstd from 8 on
    codecs = {pq.ParquetFile(os.path.join(root, f)).metadata.row_group(0).column(c).compression
              for root, _, files in os.walk(path) if ".hoodie" not in root
              for f in files if f.endswith(".parquet") for c in range(5)}
    assert codecs == {"GZIP" if version == "6" else "ZSTD"}
    check(path)


def test_codec_option_and_bad_codec(tmp_path):
    path = tmp_path / "t"
    t = make(path, "8", "cow", None)
    with pytest.raises(Exception, match="hoodie.parquet.compression.codec=brotli"):
        t.append(data(["a"], [1], ["x"], [1]), {"hoodie.parquet.compression.codec": "brotli"})
    assert not [f for _, _, fs in os.walk(path) for f in fs if f.endswith(".parquet")]
    t.append(data(["a"], [1], ["x"], [1]), {"hoodie.parquet.compression.codec": "gzip"})
    HudiTable(str(path)).upsert(data(["b"], [1], ["x"], [2]), {"hoodie.parquet.compression.codec": "snappy"})
    codecs = sorted(pq.ParquetFile(os.path.join(root, f)).metadata.row_group(0).column(0).compression
                    for root, _, fs in os.walk(path) if ".hoodie" not in root for f in fs if f.endswith(".parquet"))
    assert codecs == ["GZIP", "SNAPPY"]  # the upsert rewrote the small file with its codec
    check(path)


def test_zstd_level_option(tmp_path):
    """parquet.compression.codec.zstd.level (parquet-java's key) sets the level of zstd pages: the
    default is level 1, Arrow's writers' (the same bytes as an explicit 1), level 3 (parquet-java's)
    writes other bytes, and every level reads back the same rows; a level outside 1..22 is an error naming
    the option, with nothing written."""
    rows = data([f"key-{i:06d}" for i in range(20_000)], list(range(20_000)), ["x"] * 20_000,
                [i % 977 for i in range(20_000)])
    sizes = {}
    for level in (None, "1", "3"):
        path = tmp_path / f"t{level}"
        t = make(path, "8", "cow", None)
        for bad in ("0", "23", "fast"):
            with pytest.raises(Exception, match="parquet.compression.codec.zstd.level"):
                t.append(rows, {"parquet.compression.codec.zstd.level": bad})
        assert not [f for _, _, fs in os.walk(path) for f in fs if f.endswith(".parquet")]
        t.append(rows, {"parquet.compression.codec.zstd.level": level} if level else None)
        [f] = [os.path.join(r, f) for r, _, fs in os.walk(path) if ".hoodie" not in r for f in fs
               if f.endswith(".parquet")]
        md = pq.read_metadata(f)
        assert md.row_group(0).column(0).compression == "ZSTD"
        # the key and data columns (the commit time and file name differ from table to table)
        sizes[level] = [md.row_group(0).column(c).total_compressed_size for c in range(2, md.num_columns) if c != 4]
        assert pq.read_table(f).select(["id", "ts", "v"]).sort_by("id").equals(rows.select(["id", "ts", "v"]))
        check(path)
    assert sizes[None] == sizes["1"] and sizes["3"] != sizes["1"], sizes


@pytest.mark.parametrize("version", ["6", "9"])
@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_overwrite_in_each_version(tmp_path, version, kind):
    path = tmp_path / "t"
    t = make(path, version, kind, "p")
    m = Model("id", "p", "ts")
    b = data(["a", "b", "c"], [1, 1, 1], ["x", "y", "x"], [1, 2, 3])
    r = t.append(b)
    m.upsert(b, r.requested_time)
    b = data(["q"], [1], ["x"], [7])
    r = HudiTable(str(path)).overwrite(b)
    for k in [k for k, (row, _) in m.rows.items() if row["p"] == "x"]:
        del m.rows[k]
    m.upsert(b, r.requested_time)
    compare(path, m)
    check_timeline(path, version, kind)
    names = timeline_files(path, version)
    t_ = r.requested_time
    assert f"{t_}.replacecommit.requested" in names and f"{t_}.replacecommit.inflight" in names
    if version == "6":
        assert f"{t_}.replacecommit" in names
        raw = (path / ".hoodie" / f"{t_}.replacecommit").read_bytes()
        meta = json.loads(raw)
        assert list(meta["partitionToReplaceFileIds"]) == ["p=x"]
        # the requested file stays Avro in version 6, as Spark 0.x writes it
        assert (path / ".hoodie" / f"{t_}.replacecommit.requested").read_bytes()[:4] == b"Obj\x01"
    check(path)


def test_version_6_refuses_the_metadata_table(tmp_path):
    with pytest.raises(HudiUnsupportedError, match="turn record_index_enabled off"):
        HudiTable.create(str(tmp_path / "t"), "id", hudi_options={"hoodie.write.table.version": "6"})
    assert not (tmp_path / "t" / ".hoodie" / "hoodie.properties").exists()
    with pytest.raises(Exception, match="6, 8 and 9"):
        HudiTable.create(str(tmp_path / "u"), "id", record_index_enabled=False,
                         hudi_options={"hoodie.write.table.version": "7"})
