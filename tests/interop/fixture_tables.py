"""The fixture tables the interop tests run over: every table zip under the shared fixtures.

Tables come from tests/python/hudi_fixtures.py (unpacked once per test session into a temporary
directory; never copied into the repo). Tables that a test cannot use yet are listed here with the
reason, and show up as skipped with that reason (pytest -rs), never silently dropped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from hudi_fixtures import TABLES, table_path  # noqa: F401 - re-exported for the tests

ALL_TABLES: List[str] = sorted(str(p.relative_to(TABLES))[: -len(".zip")] for p in TABLES.rglob("*.zip"))

LANCE_REASON = (
    "Lance base files (Hudi 1.2): a later target of hudi-c, and Hudi's Spark bundle does not ship the "
    "Lance reader (Spark fails with NoClassDefFoundError: org/lance/file/LanceFileReader)"
)

# Tables a snapshot read cannot be compared on yet, and why.
READ_EXCLUDED: Dict[str, str] = {t: LANCE_REASON for t in ALL_TABLES if "lance" in Path(t).name}


def params(excluded: Dict[str, str] | None = None) -> list:
    """pytest parameters for every fixture table, the excluded ones marked skip with their reason."""
    out = []
    for t in ALL_TABLES:
        marks = [pytest.mark.skip(reason=f"{t}: {excluded[t]}")] if excluded and t in excluded else []
        out.append(pytest.param(t, id=t, marks=marks))
    return out


def tree_state(root: str) -> Dict[str, Tuple[int, int]]:
    """Every file under root with its size and modification time: to prove a reader wrote nothing."""
    state = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            st = os.stat(p)
            state[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns)
    return state
