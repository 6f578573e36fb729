"""Integer options are parsed one way (hudi_option_parse_int): a value that is not a whole number
in the option's range is refused with an error naming the option, the value and the range, before
anything is written. Checked through the verbs that read them up front: append (file sizing,
bloom filter, lock), clean (retention); the table's timeline and files stay as they were."""

from __future__ import annotations

import os
import re

import pyarrow as pa
import pytest

import hudi
from hudi import HudiTable


def rows(n: int) -> pa.Table:
    return pa.table({"id": [f"k{i}" for i in range(n)], "ts": list(range(n)), "v": ["x"] * n})


def listing(path) -> list[str]:
    return sorted(os.path.relpath(os.path.join(r, f), path) for r, _, fs in os.walk(path) for f in fs)


@pytest.mark.parametrize(
    "key,value,expect",
    [
        ("hoodie.parquet.max.file.size", "1e9", r"\(a whole number >= 1 expected\)"),
        ("hoodie.parquet.max.file.size", "", r"\(a whole number >= 1 expected\)"),
        ("hoodie.parquet.small.file.limit", "99999999999999999999", r"expected"),
        ("hoodie.index.bloom.num_entries", "0", r"\(a whole number in 1\.\.33554431 expected\)"),
        ("hoodie.index.bloom.num_entries", "60000 ", r"in 1\.\.33554431"),
        ("hoodie.write.lock.wait_time_ms", "soon", r"\(a whole number >= 0 expected\)"),
        ("hoodie.write.lock.filesystem.expire", "-1", r">= 0"),
    ],
)
def test_bad_integer_on_append(tmp_path, key, value, expect):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts")
    t.append(rows(3))
    before = listing(path)
    with pytest.raises(hudi.HudiInvalidInputError, match=f"option {re.escape(key)} is '{re.escape(value)}' .*{expect}"):
        t.append(rows(2), {key: value})
    assert listing(path) == before
    assert sum(b.num_rows for b in t.read()) == 3


@pytest.mark.parametrize("value", ["0", "1000001", "two"])
def test_bad_integer_on_clean(tmp_path, value):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts")
    t.append(rows(3))
    before = listing(path)
    with pytest.raises(hudi.HudiInvalidInputError,
                       match=rf"option hoodie.clean.commits.retained is '{value}' \(a whole number in 1\.\.1000000"):
        t.clean({"hoodie.clean.commits.retained": value})
    assert listing(path) == before


def test_good_integers_are_taken(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts")
    r = t.append(rows(3), {"hoodie.parquet.max.file.size": "134217728", "hoodie.index.bloom.num_entries": "1000",
                           "hoodie.write.lock.wait_time_ms": "0"})
    assert r.num_inserts == 3
    assert sum(b.num_rows for b in t.read()) == 3
