"""The README's quick start runs as written and prints what it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"


def test_quickstart_runs():
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    lines = text.splitlines()
    assert "append: 12 rows in 1 file(s), deltacommit" in text
    # The seed's promise: re-ingesting doc2 updates its 4 chunks and inserts nothing.
    assert "4 0" in lines
    assert "delete: 4 chunks of doc3" in lines
    assert "snapshot: 8 rows" in text
    assert "doc2 chunks: ['chunk 0 of doc2, version 2', 'chunk 1 of doc2, version 2']..." in lines
    assert "incremental since the first commit: 4 rows" in lines
    assert "chunks per document (DuckDB): [('doc1', 4, 1), ('doc2', 4, 2)]" in lines
    assert "riders ['rider-A', 'rider-C', 'rider-D', 'rider-E', 'rider-G', 'rider-I']" in text
