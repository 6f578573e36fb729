"""hudi-c quick start.

Until the write path lands, this opens a table that Spark + Apache Hudi wrote
(from ../shared/fixtures, next to this repository) and shows what hudi-c reads
from it: the table's properties and its timeline. Run it with dev/quickstart.sh.
"""

from __future__ import annotations

import sys
import tempfile
import zipfile
from pathlib import Path

import pyarrow as pa

import hudi
from hudi import HudiTableBuilder

FIXTURE = (
    Path(__file__).resolve().parents[1].parent
    / "shared/fixtures/hudi-rs/crates/test/data/quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip"
)


def unpack(zip_path: Path, into: Path) -> Path:
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(into, [m for m in z.namelist() if not m.startswith("__MACOSX")])
    return into / zip_path.stem


def main() -> int:
    print(f"hudi-c {hudi.__version__}")
    if not FIXTURE.exists():
        print(f"fixture table not found: {FIXTURE}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        path = unpack(FIXTURE, Path(tmp))
        table = HudiTableBuilder.from_base_uri(str(path)).build()
        print(f"table {table.table_name}: {table.table_type}, table version {table.table_version}, "
              f"timeline layout {table.timeline_layout_version}")
        props = table.properties()
        print(f"record key: {props.get('hoodie.table.recordkey.fields')}, "
              f"partitioned by: {props.get('hoodie.table.partition.fields')}")
        timeline = table.get_timeline()
        print(f"{len(timeline.instants)} instants on the active timeline:")
        for i in timeline.instants:
            note = f" (requested as {i.requested_action})" if i.requested_action != i.action else ""
            print(f"  {i.timestamp} -> {i.completion_timestamp or '-':17}  {i.state:9}  {i.action}{note}")
        print(f"latest commit: {timeline.get_latest_commit_timestamp()}")

        # The timeline as Arrow, handed to anything that speaks the Arrow C stream interface.
        arrow = pa.table({
            "requested": [i.timestamp for i in timeline.instants],
            "action": [i.action for i in timeline.instants],
        })
        counts = arrow.group_by("action").aggregate([("requested", "count")]).sort_by("action")
        print("instants per action:", dict(zip(counts["action"].to_pylist(), counts["requested_count"].to_pylist())))

        try:
            hudi.HudiTable(str(Path(tmp) / "missing"))
        except hudi.HudiNotFoundError as e:
            print(f"opening a missing table raises {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
