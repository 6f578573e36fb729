"""The expected table, built with pyarrow alone: the independent side of every correctness check.

Upsert = drop the rows whose key is in the batch, then append the batch; delete = drop the rows
whose key is listed. Keys go through common.key_strings so single and composite keys share one
path (pyarrow's is_in works on one column).
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from common import key_strings, sort_by_keys


def _without(table: pa.Table, keys_table: pa.Table, keys: Sequence[str]) -> pa.Table:
    hit = pc.is_in(key_strings(table, keys), value_set=key_strings(keys_table, keys))
    return table.filter(pc.invert(hit))


def apply_upsert(table: pa.Table, batch: pa.Table, keys: Sequence[str]) -> pa.Table:
    batch = batch.select(table.column_names).cast(table.schema)
    return pa.concat_tables([_without(table, batch, keys), batch])


def apply_delete(table: pa.Table, del_keys: pa.Table, keys: Sequence[str]) -> pa.Table:
    return _without(table, del_keys, keys)


def expected_state(base: pa.Table, rounds: List[Tuple[pa.Table, pa.Table]], keys: Sequence[str]) -> pa.Table:
    """base, then each round's upsert and delete, in order. The rows are concatenated once and a
    live mask is updated per commit, so wide tables (embeddings) are copied once, not per commit;
    the semantics are apply_upsert/apply_delete's (tested against each other)."""
    ups = [up.select(base.column_names).cast(base.schema) for up, _ in rounds]
    allrows = pa.concat_tables([base] + ups)
    ks = key_strings(allrows, keys)
    live = np.zeros(allrows.num_rows, dtype=bool)
    live[: base.num_rows] = True
    start = base.num_rows
    for up, (_, dele) in zip(ups, rounds):
        live &= ~pc.is_in(ks, value_set=key_strings(up, keys)).to_numpy(zero_copy_only=False)
        live[start: start + up.num_rows] = True
        start += up.num_rows
        live &= ~pc.is_in(ks, value_set=key_strings(dele, keys)).to_numpy(zero_copy_only=False)
    t = allrows.filter(pa.array(live))
    t = sort_by_keys(t, keys).combine_chunks()
    dup = len(t) - len(pc.unique(key_strings(t, keys)))
    if dup:
        raise AssertionError(f"oracle: expected state has {dup} duplicate keys")
    return t


def expected_state_stepwise(base: pa.Table, rounds: List[Tuple[pa.Table, pa.Table]], keys: Sequence[str]) -> pa.Table:
    """The same, one commit at a time (slow on wide tables; the tests compare the two)."""
    t = base
    for up, dele in rounds:
        t = apply_delete(apply_upsert(t, up, keys), dele, keys)
    return sort_by_keys(t, keys).combine_chunks()


def expected_increment(upserts: pa.Table, deleted: pa.Table, keys: Sequence[str]) -> Tuple[pa.Table, pa.Table]:
    """What an incremental read over one round (upsert then delete) must return: the latest image
    of every upserted row that the round did not delete, and the deleted keys."""
    return _without(upserts, deleted, keys), deleted.select(list(keys))


def compare_key_sets(actual: Optional[pa.Table], expected: pa.Table, keys: Sequence[str], what: str) -> Optional[str]:
    if actual is None:
        return None
    a = pc.unique(key_strings(actual, keys))
    e = pc.unique(key_strings(expected, keys))
    if len(a) != len(actual):
        return f"{what}: {len(actual) - len(a)} duplicate keys"
    extra = pc.filter(a, pc.invert(pc.is_in(a, value_set=e)))
    missing = pc.filter(e, pc.invert(pc.is_in(e, value_set=a)))
    if len(extra) or len(missing):
        return (f"{what}: {len(extra)} unexpected keys (first {extra[:3].to_pylist()}), "
                f"{len(missing)} missing (first {missing[:3].to_pylist()})")
    return None
