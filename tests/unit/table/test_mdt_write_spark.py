"""Manual interop check: Spark + Apache Hudi read a table whose metadata table
hudi-c wrote (tests/unit/table/test_mdt_write.c, round trip), then upsert into it
through the record-level index.

  1. HUDI_MDTW_KEEP=/tmp/mdtw build/tests/unit/table_test_mdt_write
     (keeps /tmp/mdtw_v8 and /tmp/mdtw_v9)
  2. source ~/.cache/hudi-c/interop.env   (dev/setup-interop.sh)
  3. JAVA_HOME=$JAVA_HOME $SPARK_PYTHON tests/unit/table/test_mdt_write_spark.py $HUDI_JAR_V8 /tmp/mdtw_v8 8
     JAVA_HOME=$JAVA_HOME $SPARK_PYTHON tests/unit/table/test_mdt_write_spark.py $HUDI_JAR /tmp/mdtw_v9 9

It asserts: the snapshot read with hoodie.metadata.enable=true (file listing
from our `files` partition) has the 11 rows the C test committed; an upsert with
hoodie.index.type=RECORD_INDEX updates k06 in place, moves k08 from us to apac
(hoodie.record.index.update.partition.path) and inserts k99, leaving 12 rows
without duplicates; record_index stays listed in hoodie.table.metadata.partitions.
Run with setLogLevel("INFO") to see SparkMetadataTableRecordIndex read our shards.
The table is modified: run it on a copy.
"""
import os
import sys


def main() -> int:
    from pyspark.sql import SparkSession

    jar, path, version = sys.argv[1], sys.argv[2], sys.argv[3]
    spark = (SparkSession.builder.master("local[2]").config("spark.jars", jar)
             .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
             .config("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar")
             .config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension")
             .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog")
             .config("spark.sql.shuffle.partitions", "2").config("spark.default.parallelism", "2")
             .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
             .getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    read = {"hoodie.metadata.enable": "true"}
    rows = sorted((r["id"], r["region"]) for r in spark.read.format("hudi").options(**read).load(path)
                  .select("id", "region").collect())
    expected = [("k01", "eu"), ("k02", "eu"), ("k03", "eu"), ("k04", "eu"), ("k06", "eu"), ("k08", "us"),
                ("k09", "us"), ("k10", "us"), ("k11", "eu"), ("k12", "apac"), ("k13", "apac")]
    assert rows == expected, rows
    write = {"hoodie.table.name": "mdtw", "hoodie.datasource.write.recordkey.field": "id",
             "hoodie.datasource.write.partitionpath.field": "region",
             "hoodie.datasource.write.hive_style_partitioning": "true",
             "hoodie.datasource.write.operation": "upsert", "hoodie.metadata.enable": "true",
             "hoodie.metadata.record.index.enable": "true", "hoodie.index.type": "RECORD_INDEX",
             "hoodie.record.index.update.partition.path": "true",
             "hoodie.datasource.write.table.type": "COPY_ON_WRITE", "hoodie.write.table.version": version,
             "hoodie.metadata.index.column.stats.enable": "false",
             "hoodie.metadata.index.partition.stats.enable": "false",
             "hoodie.datasource.write.precombine.field": "", "hoodie.table.timeline.timezone": "UTC"}
    up = spark.createDataFrame([("k06", "eu"), ("k08", "apac"), ("k99", "us")], "id string, region string")
    up.write.format("hudi").options(**write).mode("append").save(path)
    rows = sorted((r["id"], r["region"]) for r in spark.read.format("hudi").options(**read).load(path)
                  .select("id", "region").collect())
    after = sorted([r for r in expected if r[0] != "k08"] + [("k08", "apac"), ("k99", "us")])
    assert rows == after, rows
    with open(os.path.join(path, ".hoodie", "hoodie.properties")) as f:
        assert "hoodie.table.metadata.partitions=files,record_index" in f.read()
    print("OK", len(rows), "rows")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
