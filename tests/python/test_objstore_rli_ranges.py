"""Record-index lookups in large metadata-table files on an object store (issue 10).

A bulk load of 600k keys leaves each of the 10 record-index shards one base file (hudi-c's
default, hoodie.metadata.record.index.initial.base.files) or, with that option false, one log
file of ~1.5 MB, above
the request cache's 1 MiB whole-file limit, so lookups read those files by ranges. Each lookup of
a delete or an upsert must then fetch a large shard log with a bounded number of GETs (its head,
its tail with the HFile's trailer and index, and its data blocks merged into a few ranged reads),
not one GET per 4 KiB data block the keys fall in (~30 per shard for 300 keys before the reads
were merged). The oracle: the object-store table reads back equal to the same operations on
local disk and to the expected rows built with pyarrow alone.
"""

from __future__ import annotations

import collections
import hashlib
import os
import re
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi import HudiTable
from test_objstore_requests import Trace
from test_objstore_tables import BUCKET, moto, s3_options  # noqa: F401  (moto: fixture)

N = 600_000
NO_AUTO = {"hoodie.clean.automatic": "false", "hoodie.compact.inline": "false"}


def key(i: int) -> str:
    h = hashlib.blake2b(i.to_bytes(8, "little"), digest_size=14).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:28]}{i % 10000:04d}"


def table(ids, seq, val) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.string()), "seq": pa.array(seq, pa.int64()),
                     "v": pa.array(val, pa.int64())})


def canon(t: pa.Table) -> pa.Table:
    return t.select(["id", "seq", "v"]).sort_by("id").combine_chunks()


def shard_files(local: str, base: bool) -> dict:
    """Record-index base (or log) file name -> size, from the local twin (the same layout)."""
    d = Path(local) / ".hoodie" / "metadata" / "record_index"
    return {f: (d / f).stat().st_size for f in os.listdir(d) if (f.endswith(".hfile") if base else ".log." in f)}


def rli_gets(kinds) -> collections.Counter:
    return collections.Counter(k.split("/")[-1].split("?")[0] for k in kinds
                               if re.fullmatch(r"GET \.hoodie/metadata/record_index/[^/]+", k))


@pytest.mark.parametrize("where", ["base", "log"])
def test_large_shard_logs_are_read_in_few_ranged_gets(moto, tmp_path, where):  # noqa: F811
    prefix = f"rli-ranges-{os.getpid()}-{time.time_ns()}/t/"
    uri = f"s3://{BUCKET}/{prefix}".rstrip("/")
    opts = {k: v for k, v in s3_options(moto).items() if k not in ("list_max_keys", "multipart_threshold")}
    local = str(tmp_path / "local")
    ids = [key(i) for i in range(N)]
    base = table(ids, list(range(N)), [i * 3 for i in range(N)])
    for u, o in ((uri, opts), (local, {})):
        HudiTable.create(u, "id", ordering_fields="seq", table_type="mor", record_index_enabled=True,
                         storage_options=o,
                         hudi_options={"hoodie.metadata.record.index.initial.base.files": str(where == "base").lower()}
                         ).append(base)
    big = {f: s for f, s in shard_files(local, where == "base").items() if s > (1 << 20)}
    assert len(big) == 10, shard_files(local, where == "base")  # every shard's bulk-load file is read by ranges

    trace = Trace(tmp_path / "trace.txt", prefix)
    # Delete 300 keys spread over the whole key range.
    gone = ids[7::2000]
    _, kinds = trace.run(lambda: HudiTable(uri, opts).delete_keys(gone, NO_AUTO))
    HudiTable(local, {}).delete_keys(gone, NO_AUTO)
    got = rli_gets(kinds)
    for f in big:
        # head, tail (with the HFile trailer and index), data blocks in at most 2 merged reads
        assert got[f] <= 4, (f, got)
    assert sum(got.values()) <= 4 * len(big) + 2 * 10, got

    # Upsert 3000 existing keys and 300 new ones.
    upd_ids = ids[11::200] + [key(N + i) for i in range(300)]
    upd = table(upd_ids, [10**9 + i for i in range(len(upd_ids))], [-i for i in range(len(upd_ids))])
    _, kinds = trace.run(lambda: HudiTable(uri, opts).upsert(upd, NO_AUTO))
    HudiTable(local, {}).upsert(upd, NO_AUTO)
    got = rli_gets(kinds)
    for f in big:
        assert got[f] <= 4, (f, got)

    # The oracle: pyarrow alone.
    keep = pc.invert(pc.is_in(base["id"], value_set=pa.array(gone + upd_ids)))
    want = canon(pa.concat_tables([base.filter(keep), upd]))
    s3_rows = canon(pa.Table.from_batches(HudiTable(uri, opts).read()))
    local_rows = canon(pa.Table.from_batches(HudiTable(local, {}).read()))
    assert s3_rows.num_rows == N - len(gone) + 300
    assert s3_rows.equals(want)
    assert local_rows.equals(want)
