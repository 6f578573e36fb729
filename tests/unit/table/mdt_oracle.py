"""Oracle for hudi-c's metadata-table reader tests.

  dump TOOLS_DIR TABLE OUT.json

TOOLS_DIR holds ../shared/tools/hudi_check.py, whose own metadata-table merge
(written apart from hudi-c) and storage listing are used; record keys of the
latest snapshot come from the data files themselves (pyarrow for parquet base
files, hudi_check's log parsing for log blocks). Writes:

  files     {partition ("" when non-partitioned): {file name: size}} of the
            committed data files on storage (a recursive listing filtered to
            files whose instant completed)
  rli_mdt   {key: [partition, fileId]}: hudi_check's full merge of every
            record_index shard
  rli_data  {key: [[partition, fileId], ...]}: every record key of the
            latest snapshot and the live file groups holding it (a key
            inserted twice without dedup lives in two), or null when a base
            file is not parquet (lance)
  gone      keys that appear in some data file but not in the snapshot
"""
import json
import sys


def latest_keys(table, fid_files):
    """Keys of one file group's latest slice: base keys, then log blocks in order."""
    import pyarrow.parquet as pq
    import hudi_check as hc

    base, logs = table.latest_slice(fid_files)
    keys, seen = set(), set()
    if base is not None:
        if not base.name.endswith(".parquet"):
            return None, None
        col = pq.read_table(table.path(base.rel_path), columns=["_hoodie_record_key"]).column(0)
        keys.update(col.to_pylist())
    seen |= keys
    for log in logs:
        blocks, err = table.log_blocks(log)
        if err:
            raise RuntimeError(f"{log.rel_path}: {err}")
        for b in blocks:
            if table.instant_status(b.instant) not in ("completed", "archived"):
                continue
            if b.block_type == hc.AVRO_DATA:
                for r in hc.decode_avro_data_block(b):
                    keys.add(r["_hoodie_record_key"])
                    seen.add(r["_hoodie_record_key"])
            elif b.block_type == hc.DELETE:
                for d in hc.decode_delete_block(b):
                    keys.discard(d["recordKey"])
                    seen.add(d["recordKey"])
    return keys, seen


def dump(tools, base, out):
    sys.path.insert(0, tools)
    import hudi_check as hc

    table = hc.Table(base)
    mdt = hc.Table(base + "/.hoodie/metadata", metadata_table=True)
    ctx = hc.Context(table, mdt)
    files = {}
    for f in table.files:
        if table.is_committed(f):
            files.setdefault(f.partition, {})[f.name] = f.size
    rli_mdt = {k: list(v) for k, v in ctx.record_index().items()}
    rli_data, seen_all = {}, set()
    for (partition, fid), group in sorted(table.live_file_groups().items()):
        keys, seen = latest_keys(table, group)
        if keys is None:
            rli_data = None
            break
        seen_all |= seen
        for k in keys:
            rli_data.setdefault(k, []).append([partition, fid])
    # Keys of older slices and replaced groups count as "seen" too.
    if rli_data is not None:
        import pyarrow.parquet as pq
        for f in table.files:
            if f.kind == "base" and f.name.endswith(".parquet"):
                seen_all.update(pq.read_table(table.path(f.rel_path), columns=["_hoodie_record_key"]).column(0).to_pylist())
    gone = sorted(seen_all - set(rli_data)) if rli_data is not None else []
    with open(out, "w") as fh:
        json.dump({"files": files, "rli_mdt": rli_mdt, "rli_data": rli_data, "gone": gone}, fh)


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "dump":
        sys.exit(__doc__)
    dump(sys.argv[2], sys.argv[3], sys.argv[4])
