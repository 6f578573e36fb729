"""Writes one Parquet base file of a hand-made Hudi data table for
test_mdt_write.c (pyarrow is the independent writer; the metadata table under
test is written by the C code).

usage: test_mdt_write_data.py BASE REL_PATH COMMIT_TIME KEY[,KEY...]
       test_mdt_write_data.py BASE REL_PATH COMMIT_TIME range:PREFIX:START:END
(the second form: keys PREFIX%06d for START <= i < END)

REL_PATH is <partition>/<file name>; the file gets the five Hudi meta columns
(commit time, seqno, record key, partition path, file name), then `id` and
`region`, and the footer key range Hudi writes (hoodie_min/max_record_key).
"""
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main() -> int:
    base, rel, commit, spec = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    if spec.startswith("range:"):
        _, prefix, start, end = spec.split(":")
        keys = [f"{prefix}{i:06d}" for i in range(int(start), int(end))]
    else:
        keys = spec.split(",")
    partition, name = os.path.split(rel)
    n = len(keys)
    table = pa.table({
        "_hoodie_commit_time": [commit] * n,
        "_hoodie_commit_seqno": [f"{commit}_0_{i}" for i in range(n)],
        "_hoodie_record_key": keys,
        "_hoodie_partition_path": [partition] * n,
        "_hoodie_file_name": [name] * n,
        "id": keys,
        "region": [partition.split("=", 1)[-1]] * n,
    })
    table = table.replace_schema_metadata({
        "hoodie_min_record_key": min(keys),
        "hoodie_max_record_key": max(keys),
    })
    path = os.path.join(base, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(table, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
