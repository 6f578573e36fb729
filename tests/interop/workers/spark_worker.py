"""Oracle worker: one SparkSession with Apache Hudi's Spark bundle, serving JSON requests.

Run under the Spark virtual env's python (see dev/setup-interop.sh), never imported by the tests:
    python spark_worker.py --hudi-jar PATH --hudi-version V --work-dir DIR
The session lives as long as the worker, so the JVM start-up is paid once per test session.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol import open_protocol_stream, serve, to_json_value  # noqa: E402


def start_session(hudi_jar: str, work_dir: str, on_driver_classpath: bool = False):
    from pyspark.sql import SparkSession

    # Hudi's quick start settings for Spark 3.5, plus a small local footprint: two cores, two
    # shuffle partitions, no UI, and every scratch directory under work_dir (not the repo).
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("hudi-c-interop")
        .config("spark.jars", hudi_jar)
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar")
        .config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.session.timeZone", "UTC")
        # Java 17 keeps java.util.concurrent.locks closed, and Spark's launcher does not open it:
        # Hudi's BLOOM index reading filters from the metadata table (hoodie.bloom.index.use.metadata)
        # Kryo-serializes a lock (InaccessibleObjectException otherwise).
        .config("spark.driver.extraJavaOptions",
                "-Duser.timezone=UTC --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED")
        .config("spark.sql.warehouse.dir", os.path.join(work_dir, "warehouse"))
        .config("spark.local.dir", os.path.join(work_dir, "local"))
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
    )
    if on_driver_classpath:
        # The bundle on the JVM's own class path too, not only in Spark's added-jars class loader:
        # Hudi 1.0.x reads a DELETE block of its metadata table through Avro's SpecificData, which
        # resolves HoodieDeleteRecord in Avro's (the application) class loader and, with the bundle
        # only in spark.jars, fails with a ClassCastException (GenericData$Record), even on the
        # tables it wrote itself.
        builder = builder.config("spark.driver.extraClassPath", hudi_jar)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class Handlers:
    def __init__(self, spark) -> None:
        self.spark = spark
        self.jvm = spark._jvm

    def _frame(self, df) -> Dict[str, Any]:
        rows = [to_json_value(r.asDict(recursive=True)) for r in df.collect()]
        return {
            "columns": list(df.columns),
            "types": [f.dataType.simpleString() for f in df.schema.fields],
            "rows": rows,
        }

    def read_table(self, path: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """spark.read.format("hudi").options(**options).load(path), collected."""
        reader = self.spark.read.format("hudi")
        for k, v in (options or {}).items():
            reader = reader.option(k, v)
        return self._frame(reader.load(path))

    def sql(self, query: str) -> Dict[str, Any]:
        return self._frame(self.spark.sql(query))

    def _meta_client(self, path: str):
        conf = self.jvm.org.apache.hudi.storage.hadoop.HadoopStorageConfiguration(
            self.spark._jsc.hadoopConfiguration()
        )
        builder = self.jvm.org.apache.hudi.common.table.HoodieTableMetaClient.builder()
        return builder.setConf(conf).setBasePath(path).build()

    def table_config(self, path: str) -> Dict[str, Any]:
        """The table's config as Hudi's HoodieTableMetaClient loads it."""
        tc = self._meta_client(path).getTableConfig()
        props = tc.getProps()
        layout = tc.getTimelineLayoutVersion()
        return {
            "name": tc.getTableName(),
            "type": tc.getTableType().name(),
            "version": tc.getTableVersion().versionCode(),
            "timeline_layout": layout.get().getVersion() if layout.isPresent() else None,
            "properties": {k: props.getProperty(k) for k in props.stringPropertyNames()},
        }

    def timeline(self, path: str) -> List[Dict[str, Any]]:
        """Every instant of the active timeline, as Hudi's meta client reports it."""
        active = self._meta_client(path).getActiveTimeline()
        clustering = self.jvm.org.apache.hudi.common.util.ClusteringUtils
        out = []
        for i in active.getInstants():
            out.append(
                {
                    "requested_time": i.requestedTime(),
                    "completion_time": i.getCompletionTime(),
                    "action": i.getAction(),
                    "state": i.getState().name(),
                    # Whether Hudi counts a completed replacecommit as clustering (it reads the
                    # requested instant's plan / action to decide).
                    "is_clustering": bool(
                        i.isCompleted() and i.getAction() == "replacecommit"
                        and clustering.isCompletedClusteringInstant(i, active)
                    ),
                }
            )
        return out

    def archived_timeline(self, path: str) -> List[Dict[str, Any]]:
        """Every instant of the archived timeline as Hudi's meta client loads it (layout 1:
        ArchivedTimelineV1 reading .hoodie/<archive folder>; layout 2: the LSM history), with
        the counts of a completed commit's metadata as the timeline reads them back."""
        archived = self._meta_client(path).getArchivedTimeline()
        archived.loadCompletedInstantDetailsInMemory()
        out = []
        for i in archived.getInstants():
            item = {"requested_time": i.requestedTime(), "completion_time": i.getCompletionTime(),
                    "action": i.getAction(), "state": i.getState().name()}
            if i.isCompleted() and i.getAction() in ("commit", "deltacommit", "replacecommit"):
                m = archived.readCommitMetadata(i)
                item["num_writes"] = m.fetchTotalRecordsWritten()
                item["operation"] = m.getOperationType().name()
                item["files"] = sorted(str(p) for p in m.getFileIdAndRelativePaths().values())
            out.append(item)
        return out

    def write(self, path: str, rows: List[List[Any]], schema: str, options: Dict[str, str],
              mode: str = "append") -> Dict[str, Any]:
        """spark.createDataFrame(rows, schema).write.format("hudi").options(**options).mode(mode).save(path)."""
        df = self.spark.createDataFrame([tuple(r) for r in rows], schema)
        df.write.format("hudi").options(**options).mode(mode).save(path)
        return {"rows": len(rows)}

    def mdt_view(self, path: str, keys: List[str]) -> Dict[str, Any]:
        """The table as Hudi's own metadata reader (HoodieBackedTableMetadata) sees it: the partition
        list and each partition's files (name -> size) from the `files` partition, and the
        record-index location (partition, file id, instant) of each of `keys` (absent: not indexed)."""
        jvm = self.jvm
        meta_client = self._meta_client(path)
        ctx = jvm.org.apache.hudi.client.common.HoodieSparkEngineContext(self.spark._jsc)
        cfg = jvm.org.apache.hudi.common.config.HoodieMetadataConfig.newBuilder().enable(True).build()
        md = jvm.org.apache.hudi.metadata.HoodieBackedTableMetadata(ctx, meta_client.getStorage(), cfg, path)
        try:
            parts = sorted(md.getAllPartitionPaths())
            files = {}
            for p in parts:
                infos = md.getAllFilesInPartition(jvm.org.apache.hudi.storage.StoragePath(f"{path}/{p}"))
                files[p] = {i.getPath().getName(): i.getLength() for i in infos}
            jkeys = jvm.java.util.ArrayList()
            for k in keys:
                jkeys.add(k)
            found = md.readRecordIndexLocationsWithKeys(jvm.org.apache.hudi.common.data.HoodieListData.eager(jkeys))
            index = {}
            for pair in found.collectAsList():
                loc = pair.getValue()
                index[pair.getKey()] = [loc.getPartitionPath(), loc.getFileId(), loc.getInstantTime()]
            return {"partitions": parts, "files": files, "record_index": index}
        finally:
            md.close()

def main(argv: List[str]) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hudi-jar", required=True)
    ap.add_argument("--hudi-version", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--driver-classpath", action="store_true")
    args = ap.parse_args(argv)
    proto = open_protocol_stream()
    spark = start_session(args.hudi_jar, args.work_dir, args.driver_classpath)
    h = Handlers(spark)
    ops = {"read_table": h.read_table, "sql": h.sql, "table_config": h.table_config, "timeline": h.timeline,
           "write": h.write, "mdt_view": h.mdt_view, "archived_timeline": h.archived_timeline}
    try:
        serve(proto, ops, {"engine": "spark", "spark_version": spark.version, "hudi_version": args.hudi_version})
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
