"""One metadata-table handle per write: an upsert, a delete or an append opens the metadata table once.

Each write runs against moto's S3 server with HUDI_OBJSTORE_TRACE set (one line per request, see
test_objstore_requests.py). Opening the metadata table is the only reader of
.hoodie/metadata/.hoodie/hoodie.properties on the write path, so its GETs count the openings: the
file slicing, the record-index lookup, the metadata writer, the metadata clean and compaction checks
and the archival all share one handle (refreshed after the write's own metadata deltacommit instead
of reopened). The refresh re-lists the metadata table's timeline and files once; every later
service reuses it. The same writes run on a local twin and both must read back the same rows,
which must also equal what pyarrow computes from the inputs (a stale handle would lose or
duplicate keys: the record index would miss the keys the previous write added).
"""

from __future__ import annotations

import collections
import os
import re
import time

import pyarrow as pa
import pytest

from hudi import HudiTable
from test_objstore_requests import Trace, count, rows, show
from test_objstore_tables import BUCKET, batch, moto, s3_options  # noqa: F401  (moto: fixture)

MDT_PROPS = r"GET \.hoodie/metadata/\.hoodie/hoodie\.properties"
MDT_TIMELINE_LIST = r"LIST \.hoodie/metadata/\.hoodie/timeline/"
MDT_FILES_LIST = r"LIST \.hoodie/metadata/"
MDT_COMPLETED = r"PUT \.hoodie/metadata/\.hoodie/timeline/\d+_\d+\.\w+"


def part(i: int) -> str:
    return "a" if i % 3 else "b"


def by_method(kinds) -> dict:
    return dict(collections.Counter(k.split(" ", 1)[0] for k in kinds))


def expected(state: dict) -> list:
    return sorted((k, p, ts, v) for k, (p, ts, v) in state.items())


def apply(state: dict, t: pa.Table, delete=False):
    for r in t.to_pylist():
        if delete:
            state.pop(r["id"], None)
        elif r["id"] not in state or state[r["id"]][1] <= r["ts"]:
            state[r["id"]] = (r["p"], r["ts"], r["v"])


@pytest.mark.parametrize("auto", [False, True], ids=["no-auto", "auto-services"])
@pytest.mark.parametrize("kind", ["mor", "cow"])
def test_one_mdt_open_per_write(moto, kind, auto, tmp_path):  # noqa: F811
    prefix = f"mdt-handle-{kind}-{int(auto)}-{os.getpid()}-{time.time_ns()}/t/"
    uri = f"s3://{BUCKET}/{prefix}".rstrip("/")
    opts = {k: v for k, v in s3_options(moto).items() if k not in ("list_max_keys", "multipart_threshold")}
    local = str(tmp_path / "local" / "t")
    trace = Trace(tmp_path / "trace", prefix)
    # Services on every write when auto: the metadata clean and compaction run (small retention
    # and delta-commit counts), so their checks share the handle after the refresh.
    wopts = ({"hoodie.clean.commits.retained": "1", "hoodie.metadata.compact.max.delta.commits": "2",
              "hoodie.compact.inline.max.delta.commits": "2"} if auto
             else {"hoodie.clean.automatic": "false", "hoodie.compact.inline": "false"})
    ids = list(range(40))
    first = batch(ids, [1] * 40, [part(i) for i in ids], [i * 10 for i in ids])
    state: dict = {}
    apply(state, first)
    for u, o in ((uri, opts), (local, {})):
        HudiTable.create(u, "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=True, storage_options=o)
        HudiTable(u, o).append(first, wopts)

    report = []
    for step in range(4):
        # Updates of old keys, a key added by the previous step, and new keys: the record index must
        # see the previous write's keys (a handle kept from before that write would not).
        keys = [3 + step, 100 + step - 1 if step else 7, 100 + step]
        up = batch(keys, [2 + step] * 3, [part(i) for i in keys], [step, -step, 1000 + step])
        _, kinds = trace.run(lambda: HudiTable(uri, opts).upsert(up, wopts))
        HudiTable(local, {}).upsert(up, wopts)
        apply(state, up)
        report.append((f"upsert {step}", kinds))

        gone = [f"k{10 + step:03d}", f"k{100 + step:03d}"]
        _, kinds = trace.run(lambda: HudiTable(uri, opts).delete_keys(gone, wopts))
        HudiTable(local, {}).delete_keys(gone, wopts)
        for g in gone:
            state.pop(g, None)
        report.append((f"delete {step}", kinds))

        # A bulk insert of new keys shares the handle too (its metadata commit and services).
        fresh = [200 + 2 * step, 201 + 2 * step]
        add = batch(fresh, [1, 1], [part(i) for i in fresh], [7 * step, 7 * step + 1])
        _, kinds = trace.run(lambda: HudiTable(uri, opts).append(add, wopts))
        HudiTable(local, {}).append(add, wopts)
        apply(state, add)
        report.append((f"append {step}", kinds))

    for label, kinds in report:
        print(kind, "auto" if auto else "no-auto", label, len(kinds), by_method(kinds),
              "mdt props GET", count(kinds, MDT_PROPS), "mdt timeline LIST", count(kinds, MDT_TIMELINE_LIST),
              "mdt files LIST", count(kinds, MDT_FILES_LIST), "mdt instants completed", count(kinds, MDT_COMPLETED))
        if os.environ.get("HUDI_TEST_SHOW_TRACE"):
            print("\n".join("    " + k for k in kinds))
    for label, kinds in report:
        # One opening: one hoodie.properties GET (it was 6 to 8 per write: file slicing, record
        # index, metadata writer, metadata clean, metadata compaction, archival, data clean). An
        # append reads no file slices and no index, so its metadata writer runs before anything
        # opened the handle and reads the properties itself; the services then open the handle
        # once (it was 4: writer, metadata clean, compaction check, archival).
        assert count(kinds, MDT_PROPS) <= (2 if label.startswith("append") else 1), (label, show(kinds))
        # The metadata table's timeline: listed by the failed-write check (before the lock), the
        # opening and the archival; per metadata instant the write completes (its deltacommit, a
        # data clean's deltacommit, a compaction), once by the writer for the completion time and
        # at most once by the refresh that follows. Its files: by the opening and the refreshes.
        completed = count(kinds, MDT_COMPLETED)
        assert completed >= 1, (label, show(kinds))
        assert count(kinds, MDT_TIMELINE_LIST) <= 3 + 2 * completed, (label, show(kinds))
        assert count(kinds, MDT_FILES_LIST) <= 1 + completed, (label, show(kinds))
    want = expected(state)
    assert rows(HudiTable(uri, opts).read()) == want
    assert rows(HudiTable(local, {}).read()) == want
