"""Access to the Spark-written fixture tables in ../shared/fixtures.

The tables are zips; `table_path(name)` unpacks one (once per test session)
into a temporary directory and returns the table's root.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = (REPO / ".." / "shared" / "fixtures").resolve()
TABLES = FIXTURES / "hudi-rs" / "crates" / "test" / "data"
CORE_DATA = FIXTURES / "hudi-rs" / "crates" / "core" / "tests" / "data"

_UNPACKED = Path(os.environ.get("HUDI_TEST_UNPACK_DIR") or tempfile.mkdtemp(prefix="hudi-fixtures-"))


def table_path(relative_zip: str) -> str:
    """The root of a fixture table, e.g. table_path("sample_table/cow/v6_nonpartitioned")."""
    zip_path = TABLES / (relative_zip + ".zip")
    if not zip_path.exists():
        raise FileNotFoundError(zip_path)
    dest = _UNPACKED / relative_zip
    name = zip_path.stem
    if not (dest / name).exists():
        with zipfile.ZipFile(zip_path) as z:
            members = [m for m in z.namelist() if not m.startswith("__MACOSX")]
            z.extractall(dest, members)
    return str(dest / name)
