"""Random sequences with two writers: hudi-c and Apache Hudi's Spark writer of the table's version.

tests/python/test_random_ops.py runs random sequences of every hudi-c verb and table service
against a model; here each seed runs such a sequence with Spark as a second writer in between:
Spark 3.5 with Hudi 0.15.0 on version-6 tables (the last 0.x release, the engines version 6
exists for), Hudi 1.0.2 on version 8 and Hudi 1.2.0 on version 9. Spark's steps are upserts
(updates, inserts, partition moves, stale ordering values), deletes and inserts, with its own
automatic services on (cleaning and archival by the seed's thresholds, inline compaction on
some MOR writes), through the index the table has: the record index where hudi-c keeps one,
the global bloom index otherwise (hudi-c's bloom index moves keys across partitions, as
GLOBAL_BLOOM does). Version-6 Spark writes run with `hoodie.metadata.enable=false`: hudi-c
writes no version-6 metadata table, and Hudi 0.15 would build one that hudi-c then refuses to
update.

On versions 8 and 9 Spark writes with Hudi 1.x's default metadata indexes (column stats, and
partition stats on a partitioned table), which it then initialises on hudi-c's tables and hudi-c
keeps current (`HUDI_RANDOM_MIXED_SPARK_STATS=off` turns them off as before, `random` draws per
seed; `HUDI_RANDOM_MIXED_HUDIC_STATS=1` has hudi-c create its tables with column stats too).

Oracles, after every step: the model of test_random_ops.py (snapshot with meta columns, time
travel, incremental reads, hudi_check.py with the .crc files Spark's Hadoop file system leaves
excepted, and every such .crc still matching its file); on a table listing column_stats, four
random filtered queries of Spark's with data skipping on (`HUDI_RANDOM_MIXED_SKIPPING=0` skips
them between steps); every few steps and at the end, Spark's own snapshot read equals the model
too.

`HUDI_RANDOM_MIXED_SEEDS=0-19` runs more seeds than the suite's fixed ones
(`HUDI_RANDOM_MIXED_VERBOSE=1 pytest -s` prints each sequence).
"""

from __future__ import annotations

import os
import random
import re
import struct
import zlib
from pathlib import Path
from typing import Dict, List

import pytest

import test_random_ops as ops

ops._CHECK.MAX_FAILURES_SHOWN = 1 << 30  # every failure listed: the .crc ones are dropped below

SCHEMA = "id string, region string, ts long, v long, note string"


def seeds() -> List[int]:
    # version 9 MOR, 6 COW, 8 MOR with the record index, 6 MOR
    return ops.seeds("HUDI_RANDOM_MIXED_SEEDS", [0, 2, 4, 10])


class MixedRun(ops.Run):
    def __init__(self, seed: int, tmp: Path, engines) -> None:
        super().__init__(seed, tmp)
        self.spark = engines[self.version]
        self.spark_steps = 0
        self.spark_rli = self.rli
        # Spark's writes on version-8 and -9 tables keep Hudi 1.x's default metadata indexes
        # (column_stats, and partition_stats on a partitioned table) unless
        # HUDI_RANDOM_MIXED_SPARK_STATS says "off" (or "random": drawn per seed, by an rng of its
        # own so that the seed's sequence stays the same)
        mode = os.environ.get("HUDI_RANDOM_MIXED_SPARK_STATS", "default")
        side = random.Random(f"stats{seed}")
        self.skip_rng = random.Random(f"skip{seed}")
        self.spark_stats = self.version != 6 and (mode == "default" or (mode == "random" and side.random() < 0.5))
        # HUDI_RANDOM_MIXED_HUDIC_STATS=1: hudi-c creates (and writes) version-8 and -9 tables with
        # column stats on too
        if os.environ.get("HUDI_RANDOM_MIXED_HUDIC_STATS") == "1" and self.version != 6:
            self.opts["hoodie.metadata.index.column.stats.enable"] = "true"
        self.log[0] += f" spark=Hudi {self.spark.hudi_version} spark_stats={self.spark_stats}"

    def spark_options(self, operation: str, compact: bool) -> Dict[str, str]:
        o = {
            "hoodie.table.name": self.path.name,
            "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts" if self.ordering else "",
            "hoodie.datasource.write.operation": operation,
            "hoodie.datasource.write.table.type": "MERGE_ON_READ" if self.kind == "mor" else "COPY_ON_WRITE",
            "hoodie.datasource.write.hive_style_partitioning": "true",
            "hoodie.datasource.write.partitionpath.field": "region" if self.partitioned else "",
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen." + (
                "SimpleKeyGenerator" if self.partitioned else "NonpartitionedKeyGenerator"),
            "hoodie.metadata.enable": "false" if self.version == 6 else "true",
            "hoodie.index.type": "RECORD_INDEX" if self.rli else "GLOBAL_BLOOM",
            "hoodie.metadata.record.index.enable": str(self.rli).lower(),
            "hoodie.record.index.update.partition.path": "true",
            "hoodie.bloom.index.update.partition.path": "true",
            "hoodie.metadata.index.column.stats.enable": "false",
            "hoodie.metadata.index.partition.stats.enable": "false",
            "hoodie.compact.inline": str(compact).lower(),
            "hoodie.compact.inline.max.delta.commits": "1",
            "hoodie.clean.commits.retained": self.opts["hoodie.clean.commits.retained"],
            "hoodie.keep.min.commits": self.opts["hoodie.keep.min.commits"],
            "hoodie.keep.max.commits": self.opts["hoodie.keep.max.commits"],
            "hoodie.metadata.compact.max.delta.commits": self.opts["hoodie.metadata.compact.max.delta.commits"],
            "hoodie.parquet.max.file.size": self.opts["hoodie.parquet.max.file.size"],
            "hoodie.parquet.small.file.limit": self.opts["hoodie.parquet.small.file.limit"],
            "hoodie.table.timeline.timezone": "UTC",
            "hoodie.embed.timeline.server": "false",
            "hoodie.upsert.shuffle.parallelism": "2",
            "hoodie.insert.shuffle.parallelism": "2",
            "hoodie.delete.shuffle.parallelism": "2",
        }
        if self.spark_stats:  # Hudi 1.x's defaults: both on
            del o["hoodie.metadata.index.column.stats.enable"]
            del o["hoodie.metadata.index.partition.stats.enable"]
        if self.version != 6:  # (Hudi 0.15 knows neither)
            o["hoodie.write.table.version"] = str(self.version)
            o["hoodie.write.auto.upgrade"] = "false"
        if self.version == 6 and not self.ordering:
            # Hudi 0.15 takes "" for a field name; without the option it falls back to "ts"
            # for de-duplicating a batch (none here has a key twice) and its default payload
            # (OverwriteWithLatestAvroPayload) lets the latest write win, as the table wants
            del o["hoodie.datasource.write.precombine.field"]
        if self.ordering:
            o["hoodie.datasource.write.payload.class"] = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
        return o

    def step(self, i: int) -> None:
        if i > 0 and not self.pending_kill and self.m.rows and self.rng.random() < 0.3:
            what = self.do_spark(i)
            self.log.append(f"{i}: {what} -> {ops.completed_writes(self.path)[-1:]}")
        else:
            super().step(i)

    def do_spark(self, i: int) -> str:
        r = self.rng
        verb = r.choice(("upsert", "upsert", "upsert", "delete", "insert"))
        compact = self.kind == "mor" and verb == "upsert" and r.random() < 0.3
        if verb == "delete":
            keys = self.live(r.randint(1, 6))
            rows = [[k, self.m.rows[k][0], self.m.rows[k][1], 0, ""] for k in keys]
        elif verb == "insert":
            rows = self.fresh(r.randint(1, 10), i)
        else:
            rows = []
            for k in self.live(r.randint(1, 10)):
                region, ts, _, _ = self.m.rows[k]
                if self.partitioned and r.random() < 0.3:
                    region = r.choice(ops.REGIONS)
                ts = ts - r.randint(1, 3) if self.ordering and r.random() < 0.2 else self.tick()
                rows.append([k, region, ts, r.randint(100, 999), f"s{i}"])
            rows += self.fresh(r.randint(0, 5), i)
        # Spark tags keys through the record index only if the table lists one before its write:
        # after hudi-c turned the metadata table off, Spark builds it during the write and tags
        # with its fallback global index (mergeForPartitionUpdatesIfNeeded, as the bloom index)
        self.spark_rli = self.rli and self.lists_record_index()
        before = set(ops.completed_writes(self.path))
        self.spark.call("write", path=str(self.path), rows=rows, schema=SCHEMA,
                        options=self.spark_options("upsert" if verb == "insert" else verb, compact))
        new = sorted(set(ops.completed_writes(self.path)) - before)
        assert len(new) == 1, new  # (an inline compaction's commit is not a write)
        if verb == "delete":
            for k in keys:
                del self.m.rows[k]
                del self.m.by[k]
        else:
            self.apply_spark_upsert(rows, new[0])
        self.m.snapshot(new[0])
        self.spark_steps += 1
        return f"spark {verb}{' + compaction' if compact else ''} ({len(rows)} rows)"

    def apply_spark_upsert(self, rows: List[list], instant: str) -> None:
        """Spark's merge (its batches hold each key once): as hudi-c's, except where Java looks
        the stored record up and merges before it routes the key
        (HoodieIndexUtils.mergeForPartitionUpdatesIfNeeded, on partitioned tables only: on a
        partition change under a global index, and for every stored key on MOR with the global
        bloom index, whose lookup may find a key twice, or with no record index listed before
        Spark's write, when Spark falls back to its global simple index): when the
        stored record wins there, Java writes it again, unchanged, as the write's update, so
        the key's _hoodie_commit_time becomes Spark's instant. hudi-c leaves such a key alone
        (docs/compatibility.md 32)."""
        for row in rows:
            k, old = row[0], self.m.rows.get(row[0])
            if old is not None and self.ordering and row[2] < old[1]:
                if self.partitioned and (row[1] != old[0] or (self.kind == "mor" and not self.spark_rli)):
                    self.m.by[k] = instant
                continue
            self.m.rows[k] = tuple(row[1:])
            self.m.by[k] = instant

    def lists_record_index(self) -> bool:
        for line in (self.path / ".hoodie" / "hoodie.properties").read_text().splitlines():
            if line.startswith("hoodie.table.metadata.partitions="):
                return "record_index" in line.split("=", 1)[1].split(",")
        return False

    def check(self) -> List[str]:
        # Hadoop's local file system leaves a .crc checksum beside each file Spark writes
        return [b for b in super().check() if not re.search(r"\.crc\b", b)] + self.stale_checksums()

    def stale_checksums(self) -> List[str]:
        """Each .<name>.crc Spark left must match <name>: Hadoop's local file system refuses a
        file whose checksum does not (hudi-c deletes the checksum of a file it rewrites,
        hadoop_crc.h), and some of Hudi's readers take the refusal for an absent file."""
        bad = []
        for crc in self.path.rglob(".*.crc"):
            f = crc.with_name(crc.name[1:-4])
            if not f.exists():
                continue
            c, data = crc.read_bytes(), f.read_bytes()
            per = struct.unpack(">I", c[4:8])[0] if c[:4] == b"crc\0" else 0
            sums = [struct.unpack(">I", c[i:i + 4])[0] for i in range(8, len(c) - 3, 4)]
            if not per or sums != [zlib.crc32(data[i:i + per]) for i in range(0, len(data), per)]:
                bad.append(f"stale Hadoop checksum: {crc.relative_to(self.path)}")
        return bad

    def spark_rows(self) -> List[tuple]:
        rows = self.spark.read_table(str(self.path), {}).rows
        return sorted(tuple(r[c] for c in ops.COLS) for r in rows)

    def lists(self, partition: str) -> bool:
        for line in (self.path / ".hoodie" / "hoodie.properties").read_text().splitlines():
            if line.startswith("hoodie.table.metadata.partitions="):
                return partition in line.split("=", 1)[1].split(",")
        return False

    def verify_skipping(self) -> None:
        """On a table whose metadata table lists column_stats: Spark's filtered queries with data
        skipping on (column_stats prune files, partition_stats partitions) find the model's rows
        (predicates drawn by an rng of their own: the seed's sequence stays the same)."""
        if self.version == 6 or not self.lists("column_stats"):
            return
        r = self.skip_rng
        conds = []
        for _ in range(4):
            what = r.choice(("v", "v", "ts", "id", "note"))
            if what == "v":
                lo = r.randint(-999, 999)
                cond = (f"v >= {lo} AND v < {lo + 80}", lambda row, lo=lo: lo <= row[2] < lo + 80)
            elif what == "ts":
                lo = r.randint(1000, max(1000, self.clock))
                cond = (f"ts >= {lo} AND ts <= {lo + 15}", lambda row, lo=lo: lo <= row[1] <= lo + 15)
            elif what == "id":
                k = f"k{r.randint(0, max(0, self.next_key - 1)):04d}"
                cond = (f"id = '{k}'", lambda row, k=k: True, k)
            else:
                notes = sorted({row[3] for row in self.m.rows.values()}) or ["none"]
                n = r.choice(notes)
                cond = (f"note = '{n}'", lambda row, n=n: row[3] == n)
            if self.partitioned and r.random() < 0.3:
                reg = r.choice(ops.REGIONS)
                c = cond
                cond = (f"({c[0]}) AND region = '{reg}'", lambda row, c=c, reg=reg: row[0] == reg and c[1](row)) + c[2:]
            conds.append(cond)
        view = f"skip_{self.seed}"
        self.spark.call("sql", query=f"CREATE OR REPLACE TEMPORARY VIEW {view} USING hudi OPTIONS (path '{self.path}', "
                        "'hoodie.enable.data.skipping' 'true', 'hoodie.metadata.enable' 'true')")
        query = " UNION ALL ".join(f"SELECT {j} AS q, id FROM {view} WHERE {c[0]}" for j, c in enumerate(conds))
        try:
            rows = self.spark.call("sql", query=query)["rows"]
        except Exception as e:
            raise AssertionError("\n".join(self.log) + f"\nSpark's data-skipping query failed: {str(e)[:1500]}") from None
        def val(x):
            return next(iter(x.values())) if isinstance(x, dict) else x
        for j, c in enumerate(conds):
            got = sorted(val(row["id"]) for row in rows if val(row["q"]) == j)
            want = sorted(k for k, row in self.m.rows.items() if (len(c) < 3 or k == c[2]) and c[1](row))
            if got != want:
                self.log.append(f"(Spark's data-skipping query WHERE {c[0]})")
                self.log.append(f"   metadata partitions: {[l for l in (self.path / '.hoodie' / 'hoodie.properties').read_text().splitlines() if 'metadata.partitions' in l]}")
                super().fail(f"Spark (Hudi {self.spark.hudi_version}) data skipping WHERE {c[0]}", got, want)

    def verify_spark(self) -> None:
        got, want = self.spark_rows(), self.m.expected()
        if got != want:
            self.log.append("(Spark's snapshot)")
            super().fail(f"Spark (Hudi {self.spark.hudi_version}) snapshot", got, want)

    def fail(self, what: str, got, want) -> None:
        """Says which side Spark's own read takes when hudi-c's read and the model differ."""
        try:
            theirs = self.spark_rows()
            self.log.append(f"(Spark's snapshot {'equals the model' if theirs == self.m.expected() else 'equals hudi-c' if theirs == got else 'differs from both'}"
                            f"{'' if theirs in (got, self.m.expected()) else ': ' + repr(sorted(set(theirs) ^ set(self.m.expected()))[:6])})")
        except Exception as e:  # noqa: BLE001 - the failure being reported matters more
            self.log.append(f"(Spark's snapshot failed: {str(e)[:500]})")
        super().fail(what, got, want)


@pytest.fixture(scope="module")
def engines(request):
    """Spark with the Hudi release of each table version, each started when first used."""
    names = {6: "spark_v6", 8: "spark_v8", 9: "spark"}

    class Lazy(dict):
        def __missing__(self, version):
            self[version] = request.getfixturevalue(names[version])
            return self[version]

    return Lazy()


@pytest.mark.parametrize("seed", seeds())
def test_random_mixed(tmp_path, engines, seed):
    run = MixedRun(seed, tmp_path, engines)
    run.create()
    for i in range(int(os.environ.get("HUDI_RANDOM_MIXED_STEPS", "24"))):
        run.step(i)
        run.verify()
        if os.environ.get("HUDI_RANDOM_MIXED_SKIPPING", "1") == "1":
            run.verify_skipping()
        if i % 8 == 7:
            run.verify_spark()
    run.verify_spark()
    run.verify_skipping()
    assert run.spark_steps >= 1 or len(run.log) < 8, "\n".join(run.log)
    if os.environ.get("HUDI_RANDOM_MIXED_VERBOSE"):
        print("\n".join(run.log))


def test_restore_after_spark_archived_the_metadata_table(tmp_path, spark_v8):
    """The sequence (seed 4's table: version 8, MOR, partitioned, record index, ordering field)
    in which a restore lost metadata-table entries: Spark's writes compacted and archived the
    metadata table, and the data table's archival moved writes past the MDT compaction before
    the savepoint; the restore undid the MDT compactions after the savepoint, so the MDT's log
    blocks of those writes were on neither active timeline and readers skipped them (Spark's
    metadata reader and hudi_check.py listed none of their files). Such a restore was refused
    from 2026-12-07 on, and now drops the metadata table and builds it again (mdt_bootstrap.h);
    the table must pass every check either way."""
    verbs = ("append compact spark delete_keys spark append archive append delete compact spark upsert "
             "upsert savepoint archive update upsert upsert spark rollback spark spark delete_keys restore").split()
    run = MixedRun(4, tmp_path, {8: spark_v8})
    assert (run.version, run.kind, run.rli) == (8, "mor", True), run.log[0]
    run.create()
    for i, verb in enumerate(verbs):
        what = run.do_spark(i) if verb == "spark" else (getattr(run, "do_" + verb)(i) or verb)
        run.log.append(f"{i}: {what} -> {ops.completed_writes(run.path)[-1:]}")
        run.verify()
    run.verify_spark()
