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
    assert "append: 6 rows in 1 file(s), deltacommit" in text
    assert "snapshot: 6 rows" in text
    assert "doc2 chunks: ['doc2#0', 'doc2#1']" in text
    assert "chunks per document (DuckDB): [('doc1', 2), ('doc2', 2), ('doc3', 2)]" in text
    assert "riders ['rider-A', 'rider-C', 'rider-D', 'rider-E', 'rider-G', 'rider-I']" in text
