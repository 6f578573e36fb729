"""Instant times in the table's timeline zone (hoodie.table.timeline.timezone).

Tables hudi-c creates say UTC and get UTC times; a table Spark created with Hudi's default zone
(LOCAL: no property) gets the writing process's local wall-clock time, as Java's
HoodieInstantTimeGenerator writes it, so its timeline stays in one zone whoever writes next.
Oracle: the wall clock of a fixed-offset zone computed here with datetime, the zone given to a
child process through TZ (POSIX "UTC-05:30" is 5 h 30 east of UTC).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

import hudi
from hudi import HudiTable
from hudi_fixtures import table_path

SCRIPT = r"""
import sys
import pyarrow as pa
from hudi import HudiTable
path, mode = sys.argv[1], sys.argv[2]
if mode == "create":
    t = HudiTable.create(path, "id", ordering_fields="ts")
    r = t.append(pa.table({"id": ["a", "b"], "ts": pa.array([1, 1], pa.int64())}))
    r = t.upsert(pa.table({"id": ["a"], "ts": pa.array([2], pa.int64())}))
elif mode == "asof":
    import hudi
    opts = hudi.HudiReadOptions(hudi_options={"hoodie.read.as.of.timestamp": sys.argv[3]})
    print(pa.Table.from_batches(HudiTable(path).read(opts)).num_rows)
    sys.exit(0)
else:
    t = HudiTable(path)
    data = pa.Table.from_batches(t.read())
    data = data.select([n for n in data.column_names if not n.startswith("_hoodie_")])
    i = data.column_names.index("longField")
    data = data.set_column(i, "longField", pa.array([v + 1000 for v in data["longField"].to_pylist()], pa.int64()))
    r = HudiTable(path).upsert(data)
print(r.requested_time, r.completion_time)
"""
EAST = timedelta(hours=5, minutes=30)


def child(path, mode: str, *args) -> list:
    env = dict(os.environ, TZ="UTC-05:30")
    return subprocess.run([sys.executable, "-c", SCRIPT, str(path), mode, *args], env=env, capture_output=True,
                          text=True, check=True).stdout.split()


def run(path, mode: str) -> tuple:
    return tuple(datetime.strptime(x, "%Y%m%d%H%M%S%f") for x in child(path, mode))


def near(t: datetime, want: datetime) -> bool:
    return abs(t - want) < timedelta(minutes=2)


@pytest.mark.parametrize("explicit", [False, True])
def test_local_zone_table_gets_local_times(tmp_path, explicit):
    path = tmp_path / "t"
    shutil.copytree(table_path("sample_table/cow/v8_nonpartitioned"), path)
    props = path / ".hoodie" / "hoodie.properties"
    assert "hoodie.table.timeline.timezone" not in props.read_text()  # Hudi's default: LOCAL
    if explicit:  # as a table created with hoodie.table.timeline.timezone=LOCAL says it
        props.write_text(props.read_text() + "hoodie.table.timeline.timezone=LOCAL\n")
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    req, done = run(path, "continue")
    assert near(req, now + EAST) and near(done, now + EAST), (req, done, now)
    assert done >= req
    names = sorted(n for n in os.listdir(path / ".hoodie" / "timeline") if n[:1].isdigit())
    assert names[-1].startswith(req.strftime("%Y%m%d%H%M%S")), names


def test_utc_table_stays_utc_whatever_the_process_zone(tmp_path):
    path = tmp_path / "t"
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    req, done = run(path, "create")
    assert "hoodie.table.timeline.timezone=UTC" in (path / ".hoodie" / "hoodie.properties").read_text()
    assert near(req, now) and near(done, now), (req, done, now)


def test_unknown_zone_is_refused(tmp_path):
    path = tmp_path / "t"
    shutil.copytree(table_path("sample_table/cow/v8_nonpartitioned"), path)
    props = path / ".hoodie" / "hoodie.properties"
    props.write_text(props.read_text() + "hoodie.table.timeline.timezone=PST\n")
    before = sorted(os.listdir(path / ".hoodie" / "timeline"))
    with pytest.raises(hudi.HudiError, match="timezone=PST is neither UTC nor LOCAL"):
        HudiTable(str(path)).delete_keys(["1"])
    assert sorted(os.listdir(path / ".hoodie" / "timeline")) == before


def test_epoch_timestamps_read_in_the_local_zone(tmp_path):
    """Time travel by epoch milliseconds on a LOCAL table: the instant is the local wall-clock time
    of that moment (as hudi-rs's format_timestamp converts for a Local timezone), so the epoch of
    Spark's first instant read as local time finds that commit (3 rows; the table has 4 now)."""
    path = tmp_path / "t"
    shutil.copytree(table_path("sample_table/cow/v8_nonpartitioned"), path)
    first = "20250713010535797"
    local = datetime.strptime(first, "%Y%m%d%H%M%S%f").replace(tzinfo=timezone(EAST))
    epoch_ms = str(int(local.timestamp() * 1000))
    assert child(path, "asof", epoch_ms) == ["3"]
    assert child(path, "asof", first) == ["3"]  # an instant time is taken as written
    assert child(path, "asof", local.isoformat()) == ["3"]  # RFC 3339 with its offset
