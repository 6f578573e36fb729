"""Run by tests/interop/test_write_mdt_engines.py with the Spark oracle's Python: one upsert into a
hudi-c table through the record-level index hudi-c maintains.

  spark_rli_upsert.py HUDI_JAR WORK_DIR TABLE_PATH TABLE_TYPE PARTITION_FIELD ROWS_JSON [INDEX [OPTIONS_JSON]]

ROWS_JSON: [[id, region, v], ...]. Writes with hoodie.index.type=RECORD_INDEX (or INDEX, e.g.
BLOOM: then the record index stays off and Spark finds the keys through the footer bloom filters
of our base files), the metadata table on, column/partition stats off, table version 8 kept, and
a region change moving the record (hoodie.record.index.update.partition.path); OPTIONS_JSON, an
object of more write options, goes on top. Prints one JSON line: {"ok": true} or raises.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "workers"))

from spark_worker import start_session  # noqa: E402


def main() -> int:
    jar, work_dir, path, table_type, part_field, rows_json = sys.argv[1:7]
    index = sys.argv[7] if len(sys.argv) > 7 else "RECORD_INDEX"
    spark = start_session(jar, work_dir)
    rows = [tuple(r) for r in json.loads(rows_json)]
    df = spark.createDataFrame(rows, "id string, region string, v long")
    opts = {
        "hoodie.table.name": os.path.basename(path.rstrip("/")),
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.operation": "upsert",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ" if table_type == "mor" else "COPY_ON_WRITE",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.datasource.write.precombine.field": "",
        "hoodie.metadata.enable": "true",
        "hoodie.metadata.record.index.enable": "true" if index == "RECORD_INDEX" else "false",
        "hoodie.index.type": index,
        "hoodie.record.index.update.partition.path": "true",
        "hoodie.metadata.index.column.stats.enable": "false",
        "hoodie.metadata.index.partition.stats.enable": "false",
        "hoodie.write.table.version": "8",
        "hoodie.write.auto.upgrade": "false",
        "hoodie.table.timeline.timezone": "UTC",
    }
    if len(sys.argv) > 8:
        opts.update(json.loads(sys.argv[8]))
    if part_field:
        opts["hoodie.datasource.write.partitionpath.field"] = part_field
        opts["hoodie.datasource.write.keygenerator.class"] = "org.apache.hudi.keygen.SimpleKeyGenerator"
    else:
        opts["hoodie.datasource.write.partitionpath.field"] = ""
        opts["hoodie.datasource.write.keygenerator.class"] = "org.apache.hudi.keygen.NonpartitionedKeyGenerator"
    df.write.format("hudi").options(**opts).mode("append").save(path)
    spark.stop()
    print(json.dumps({"ok": True}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
