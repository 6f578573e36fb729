/* Schema strings Java writes into timeline files. Data describing a
 * format: each is verified against the fixture named in its comment
 * (tests/unit/table/test_timeline_records.c re-encodes those files byte
 * for byte with these strings). */
#include "table/timeline_schemas.h"

#include <string.h>

/* fixture: every v8/v9 .commit/.deltacommit/.inflight (3293 bytes) */
static const char SCHEMA_COMMIT_METADATA[] =
    "{\"type\":\"record\",\"name\":\"HoodieCommitMetadata\",\"namespace\":\"org.apache.hudi.avro.model\","
    "\"fields\":[{\"name\":\"partitionToWriteStats\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"t"
    "ype\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieWriteStat\",\"fields\":[{\"name\":\""
    "fileId\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null}"
    ",{\"name\":\"path\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"defa"
    "ult\":null},{\"name\":\"prevCommit\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\""
    "String\"}],\"default\":null},{\"name\":\"numWrites\",\"type\":[\"null\",\"long\"],\"default\":null},"
    "{\"name\":\"numDeletes\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"numUpdateWrites"
    "\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"totalWriteBytes\",\"type\":[\"null\",\""
    "long\"],\"default\":null},{\"name\":\"totalWriteErrors\",\"type\":[\"null\",\"long\"],\"default\":nu"
    "ll},{\"name\":\"partitionPath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"Strin"
    "g\"}],\"default\":null},{\"name\":\"totalLogRecords\",\"type\":[\"null\",\"long\"],\"default\":null}"
    ",{\"name\":\"totalLogFiles\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"totalUpdated"
    "RecordsCompacted\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"numInserts\",\"type\":"
    "[\"null\",\"long\"],\"default\":null},{\"name\":\"totalLogBlocks\",\"type\":[\"null\",\"long\"],\"de"
    "fault\":null},{\"name\":\"totalCorruptLogBlock\",\"type\":[\"null\",\"long\"],\"default\":null},{\"n"
    "ame\":\"totalRollbackBlocks\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"fileSizeInB"
    "ytes\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"logVersion\",\"type\":[\"null\",\""
    "int\"],\"default\":null},{\"name\":\"logOffset\",\"type\":[\"null\",\"long\"],\"default\":null},{\"n"
    "ame\":\"baseFile\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"defau"
    "lt\":null},{\"name\":\"logFiles\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"strin"
    "g\",\"avro.java.string\":\"String\"},\"default\":null}],\"default\":null},{\"name\":\"cdcStats\",\"t"
    "ype\":[\"null\",{\"type\":\"map\",\"values\":\"long\",\"avro.java.string\":\"String\",\"default\":nu"
    "ll}],\"default\":null},{\"name\":\"prevBaseFile\",\"type\":[\"null\",{\"type\":\"string\",\"avro.jav"
    "a.string\":\"String\"}],\"default\":null},{\"name\":\"minEventTime\",\"type\":[\"null\",\"long\"],\""
    "default\":null},{\"name\":\"maxEventTime\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":"
    "\"runtimeStats\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieRuntimeStats\",\"fields\":"
    "[{\"name\":\"totalScanTime\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"totalCreateT"
    "ime\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"totalUpsertTime\",\"type\":[\"null"
    "\",\"long\"],\"default\":null}]}],\"default\":null},{\"name\":\"totalLogFilesCompacted\",\"type\":[\""
    "null\",\"long\"],\"default\":null},{\"name\":\"totalLogReadTimeMs\",\"type\":[\"null\",\"long\"],\"d"
    "efault\":null},{\"name\":\"totalLogSizeCompacted\",\"type\":[\"null\",\"long\"],\"default\":null},{"
    "\"name\":\"tempPath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"def"
    "ault\":null},{\"name\":\"numUpdates\",\"type\":[\"null\",\"long\"],\"default\":null}]}},\"avro.java."
    "string\":\"String\"}],\"default\":null},{\"name\":\"compacted\",\"type\":[\"null\",\"boolean\"],\"de"
    "fault\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\",\"default\":null}],\"def"
    "ault\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"operationT"
    "ype\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null}]}";

/* fixture: v9 T_C.replacecommit (3476 bytes) */
static const char SCHEMA_REPLACE_COMMIT_METADATA[] =
    "{\"type\":\"record\",\"name\":\"HoodieReplaceCommitMetadata\",\"namespace\":\"org.apache.hudi.avro.m"
    "odel\",\"fields\":[{\"name\":\"partitionToWriteStats\",\"type\":[\"null\",{\"type\":\"map\",\"values"
    "\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieWriteStat\",\"fields\":[{\"na"
    "me\":\"fileId\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default"
    "\":null},{\"name\":\"path\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}]"
    ",\"default\":null},{\"name\":\"prevCommit\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.stri"
    "ng\":\"String\"}],\"default\":null},{\"name\":\"numWrites\",\"type\":[\"null\",\"long\"],\"default\""
    ":null},{\"name\":\"numDeletes\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"numUpdate"
    "Writes\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"totalWriteBytes\",\"type\":[\"nu"
    "ll\",\"long\"],\"default\":null},{\"name\":\"totalWriteErrors\",\"type\":[\"null\",\"long\"],\"defau"
    "lt\":null},{\"name\":\"partitionPath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":"
    "\"String\"}],\"default\":null},{\"name\":\"totalLogRecords\",\"type\":[\"null\",\"long\"],\"default"
    "\":null},{\"name\":\"totalLogFiles\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"total"
    "UpdatedRecordsCompacted\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"numInserts\",\""
    "type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"totalLogBlocks\",\"type\":[\"null\",\"long"
    "\"],\"default\":null},{\"name\":\"totalCorruptLogBlock\",\"type\":[\"null\",\"long\"],\"default\":nul"
    "l},{\"name\":\"totalRollbackBlocks\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"file"
    "SizeInBytes\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"logVersion\",\"type\":[\"nu"
    "ll\",\"int\"],\"default\":null},{\"name\":\"logOffset\",\"type\":[\"null\",\"long\"],\"default\":nul"
    "l},{\"name\":\"baseFile\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],"
    "\"default\":null},{\"name\":\"logFiles\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"},\"default\":null}],\"default\":null},{\"name\":\"cdcStat"
    "s\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"long\",\"avro.java.string\":\"String\",\"defau"
    "lt\":null}],\"default\":null},{\"name\":\"prevBaseFile\",\"type\":[\"null\",{\"type\":\"string\",\"a"
    "vro.java.string\":\"String\"}],\"default\":null},{\"name\":\"minEventTime\",\"type\":[\"null\",\"lon"
    "g\"],\"default\":null},{\"name\":\"maxEventTime\",\"type\":[\"null\",\"long\"],\"default\":null},{\""
    "name\":\"runtimeStats\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieRuntimeStats\",\"fi"
    "elds\":[{\"name\":\"totalScanTime\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"total"
    "CreateTime\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"totalUpsertTime\",\"type\":["
    "\"null\",\"long\"],\"default\":null}]}],\"default\":null},{\"name\":\"totalLogFilesCompacted\",\"typ"
    "e\":[\"null\",\"long\"],\"default\":null},{\"name\":\"totalLogReadTimeMs\",\"type\":[\"null\",\"long"
    "\"],\"default\":null},{\"name\":\"totalLogSizeCompacted\",\"type\":[\"null\",\"long\"],\"default\":n"
    "ull},{\"name\":\"tempPath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}"
    "],\"default\":null},{\"name\":\"numUpdates\",\"type\":[\"null\",\"long\"],\"default\":null}]}},\"avr"
    "o.java.string\":\"String\"}],\"default\":null},{\"name\":\"compacted\",\"type\":[\"null\",\"boolean"
    "\"],\"default\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\""
    "type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"default\":nul"
    "l},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"operationType\",\"ty"
    "pe\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\""
    "partitionToReplaceFileIds\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"array\",\"it"
    "ems\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},\"avro.java.string\":\"String\"}],\"def"
    "ault\":null}]}";

/* fixture: .compaction.requested (2191 bytes) */
static const char SCHEMA_COMPACTION_PLAN[] =
    "{\"type\":\"record\",\"name\":\"HoodieCompactionPlan\",\"namespace\":\"org.apache.hudi.avro.model\","
    "\"fields\":[{\"name\":\"operations\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"re"
    "cord\",\"name\":\"HoodieCompactionOperation\",\"fields\":[{\"name\":\"baseInstantTime\",\"type\":[\""
    "null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}]},{\"name\":\"deltaFilePaths\",\"type\""
    ":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}],\"d"
    "efault\":null},{\"name\":\"dataFilePath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string"
    "\":\"String\"}],\"default\":null},{\"name\":\"fileId\",\"type\":[\"null\",{\"type\":\"string\",\"avr"
    "o.java.string\":\"String\"}]},{\"name\":\"partitionPath\",\"type\":[\"null\",{\"type\":\"string\",\""
    "avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"metrics\",\"type\":[\"null\",{\"type\""
    ":\"map\",\"values\":\"double\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"boots"
    "trapFilePath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\""
    ":null}]}}],\"default\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"valu"
    "es\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"defau"
    "lt\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"strategy\","
    "\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieCompactionStrategy\",\"fields\":[{\"name\":"
    "\"compactorClassName\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"do"
    "c\":\"The class name that is provided here should extend CompactionExecutionStrategy abstract class,"
    " idea is that the plan generator will also provide the execution strategy to use.\",\"default\":null"
    "},{\"name\":\"strategyParams\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"string\","
    "\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"doc\":\"These parameters play a"
    " key role in determining which action type it is i.e. compaction or logcompaction and it will also i"
    "nclude configs that determine how compaction needs to be executed.\",\"default\":null},{\"name\":\"v"
    "ersion\",\"type\":[\"int\",\"null\"],\"default\":1}]}],\"default\":null},{\"name\":\"preserveHoodieM"
    "etadata\",\"type\":[\"boolean\",\"null\"],\"default\":false},{\"name\":\"missingSchedulePartitions\""
    ",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String"
    "\"}}],\"default\":null}]}";

/* no fixture: Schema.toString() of Hudi 1.0.2's (and 1.2.0's, identical) generated class */
static const char SCHEMA_CLEANER_PLAN[] =
    "{\"type\":\"record\",\"name\":\"HoodieCleanerPlan\",\"namespace\":\"org.apache.hudi.avro.model\",\"f"
    "ields\":[{\"name\":\"earliestInstantToRetain\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Ho"
    "odieActionInstant\",\"fields\":[{\"name\":\"timestamp\",\"type\":{\"type\":\"string\",\"avro.java.st"
    "ring\":\"String\"}},{\"name\":\"action\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String"
    "\"}},{\"name\":\"state\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}]}],\"defaul"
    "t\":null},{\"name\":\"lastCompletedCommitTimestamp\",\"type\":{\"type\":\"string\",\"avro.java.strin"
    "g\":\"String\"},\"default\":\"\"},{\"name\":\"policy\",\"type\":{\"type\":\"string\",\"avro.java.str"
    "ing\":\"String\"}},{\"name\":\"filesToBeDeletedPerPartition\",\"type\":[\"null\",{\"type\":\"map\","
    "\"values\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},\"avr"
    "o.java.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"d"
    "efault\":1},{\"name\":\"filePathsToBeDeletedPerPartition\",\"type\":[\"null\",{\"type\":\"map\",\"va"
    "lues\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieCleanFileInfo\",\"fields"
    "\":[{\"name\":\"filePath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],"
    "\"default\":null},{\"name\":\"isBootstrapBaseFile\",\"type\":[\"null\",\"boolean\"],\"default\":null"
    "}]}},\"avro.java.string\":\"String\"}],\"doc\":\"This field replaces the field filesToBeDeletedPerPa"
    "rtition\",\"default\":null},{\"name\":\"partitionsToBeDeleted\",\"type\":[\"null\",{\"type\":\"array"
    "\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}],\"doc\":\"partitions to be dele"
    "ted\",\"default\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":"
    "{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\",\"default\":nu"
    "ll}],\"default\":null}]}";

/* no fixture: Schema.toString() of Hudi 1.0.2's (and 1.2.0's, identical) generated class */
static const char SCHEMA_CLEAN_METADATA[] =
    "{\"type\":\"record\",\"name\":\"HoodieCleanMetadata\",\"namespace\":\"org.apache.hudi.avro.model\","
    "\"fields\":[{\"name\":\"startCleanTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String"
    "\"}},{\"name\":\"timeTakenInMillis\",\"type\":\"long\"},{\"name\":\"totalFilesDeleted\",\"type\":\"in"
    "t\"},{\"name\":\"earliestCommitToRetain\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"Strin"
    "g\"}},{\"name\":\"lastCompletedCommitTimestamp\",\"type\":{\"type\":\"string\",\"avro.java.string\":"
    "\"String\"},\"default\":\"\"},{\"name\":\"partitionMetadata\",\"type\":{\"type\":\"map\",\"values\":"
    "{\"type\":\"record\",\"name\":\"HoodieCleanPartitionMetadata\",\"fields\":[{\"name\":\"partitionPath"
    "\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"policy\",\"type\":{\""
    "type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"deletePathPatterns\",\"type\":{\"typ"
    "e\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}},{\"name\":\"successD"
    "eleteFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"Stri"
    "ng\"}}},{\"name\":\"failedDeleteFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
    "\"avro.java.string\":\"String\"}}},{\"name\":\"isPartitionDeleted\",\"type\":[\"null\",\"boolean\"],"
    "\"default\":null}]},\"avro.java.string\":\"String\"}},{\"name\":\"version\",\"type\":[\"int\",\"null"
    "\"],\"default\":1},{\"name\":\"bootstrapPartitionMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"v"
    "alues\":\"HoodieCleanPartitionMetadata\",\"avro.java.string\":\"String\",\"default\":null}],\"defaul"
    "t\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"st"
    "ring\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\",\"default\":null}],\"default"
    "\":null}]}";

/* fixture: .rollback.requested, v6 and v9 (1141 bytes) */
static const char SCHEMA_ROLLBACK_PLAN[] =
    "{\"type\":\"record\",\"name\":\"HoodieRollbackPlan\",\"namespace\":\"org.apache.hudi.avro.model\",\""
    "fields\":[{\"name\":\"instantToRollback\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieI"
    "nstantInfo\",\"fields\":[{\"name\":\"commitTime\",\"type\":{\"type\":\"string\",\"avro.java.string\""
    ":\"String\"}},{\"name\":\"action\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}]}"
    "],\"doc\":\"Hoodie instant that needs to be rolled back\",\"default\":null},{\"name\":\"RollbackRequ"
    "ests\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieRollba"
    "ckRequest\",\"fields\":[{\"name\":\"partitionPath\",\"type\":{\"type\":\"string\",\"avro.java.string"
    "\":\"String\"}},{\"name\":\"fileId\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\""
    "String\"}],\"default\":null},{\"name\":\"latestBaseInstant\",\"type\":[\"null\",{\"type\":\"string\""
    ",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"filesToBeDeleted\",\"type\":{\"type"
    "\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"default\":[]},\"defau"
    "lt\":[]},{\"name\":\"logBlocksToBeDeleted\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"long\""
    ",\"avro.java.string\":\"String\"}],\"default\":null}]}}],\"default\":null},{\"name\":\"version\",\"t"
    "ype\":[\"int\",\"null\"],\"default\":1}]}";

/* fixture: T_C.rollback, v6 and v9 (1409 bytes) */
static const char SCHEMA_ROLLBACK_METADATA[] =
    "{\"type\":\"record\",\"name\":\"HoodieRollbackMetadata\",\"namespace\":\"org.apache.hudi.avro.model"
    "\",\"fields\":[{\"name\":\"startRollbackTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"S"
    "tring\"}},{\"name\":\"timeTakenInMillis\",\"type\":\"long\"},{\"name\":\"totalFilesDeleted\",\"type"
    "\":\"int\"},{\"name\":\"commitsRollback\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\""
    ",\"avro.java.string\":\"String\"}}},{\"name\":\"partitionMetadata\",\"type\":{\"type\":\"map\",\"val"
    "ues\":{\"type\":\"record\",\"name\":\"HoodieRollbackPartitionMetadata\",\"fields\":[{\"name\":\"part"
    "itionPath\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"successDelet"
    "eFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\""
    "}}},{\"name\":\"failedDeleteFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"av"
    "ro.java.string\":\"String\"}}},{\"name\":\"rollbackLogFiles\",\"type\":[\"null\",{\"type\":\"map\","
    "\"values\":\"long\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"logFilesFromFaile"
    "dCommit\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"long\",\"avro.java.string\":\"String\"}]"
    ",\"default\":null}]},\"avro.java.string\":\"String\"}},{\"name\":\"version\",\"type\":[\"int\",\"nul"
    "l\"],\"default\":1},{\"name\":\"instantsRollback\",\"type\":{\"type\":\"array\",\"items\":{\"type\":"
    "\"record\",\"name\":\"HoodieInstantInfo\",\"fields\":[{\"name\":\"commitTime\",\"type\":{\"type\":\""
    "string\",\"avro.java.string\":\"String\"}},{\"name\":\"action\",\"type\":{\"type\":\"string\",\"avro"
    ".java.string\":\"String\"}}]},\"default\":[]},\"default\":[]}]}";

/* fixture: 1.x .replacecommit.requested / .clustering.requested (2603 bytes) */
static const char SCHEMA_REQUESTED_REPLACE[] =
    "{\"type\":\"record\",\"name\":\"HoodieRequestedReplaceMetadata\",\"namespace\":\"org.apache.hudi.avr"
    "o.model\",\"fields\":[{\"name\":\"operationType\",\"type\":[\"null\",{\"type\":\"string\",\"avro.jav"
    "a.string\":\"String\"}],\"default\":null},{\"name\":\"clusteringPlan\",\"type\":[\"null\",{\"type\":"
    "\"record\",\"name\":\"HoodieClusteringPlan\",\"fields\":[{\"name\":\"inputGroups\",\"type\":[\"null"
    "\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieClusteringGroup\",\"fields\":["
    "{\"name\":\"slices\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":"
    "\"HoodieSliceInfo\",\"fields\":[{\"name\":\"dataFilePath\",\"type\":[\"null\",{\"type\":\"string\","
    "\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"deltaFilePaths\",\"type\":[\"null\",{"
    "\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}],\"default\":nul"
    "l},{\"name\":\"fileId\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}]},{"
    "\"name\":\"partitionPath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}]"
    ",\"default\":null},{\"name\":\"bootstrapFilePath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.ja"
    "va.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"defau"
    "lt\":1}]}}],\"default\":null},{\"name\":\"metrics\",\"type\":[\"null\",{\"type\":\"map\",\"values\":"
    "\"double\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"numOutputFileGroups\",\"t"
    "ype\":[\"int\",\"null\"],\"default\":1},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"m"
    "ap\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String"
    "\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}}],\"default"
    "\":null},{\"name\":\"strategy\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieClusteringS"
    "trategy\",\"fields\":[{\"name\":\"strategyClassName\",\"type\":[\"null\",{\"type\":\"string\",\"avro"
    ".java.string\":\"String\"}],\"default\":null},{\"name\":\"strategyParams\",\"type\":[\"null\",{\"typ"
    "e\":\"map\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\""
    "String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}],\"d"
    "efault\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\""
    ":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"default\":null},{\""
    "name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"preserveHoodieMetadata\","
    "\"type\":[\"null\",\"boolean\"],\"default\":null},{\"name\":\"missingSchedulePartitions\",\"type\":["
    "\"null\",{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}],\"defa"
    "ult\":null}]}],\"default\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\""
    "values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"d"
    "efault\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}";

/* fixture: 0.x (table version 6) .replacecommit.requested (2464 bytes), no clusteringPlan.missingSchedulePartitions */
static const char SCHEMA_REQUESTED_REPLACE_V6[] =
    "{\"type\":\"record\",\"name\":\"HoodieRequestedReplaceMetadata\",\"namespace\":\"org.apache.hudi.avr"
    "o.model\",\"fields\":[{\"name\":\"operationType\",\"type\":[\"null\",{\"type\":\"string\",\"avro.jav"
    "a.string\":\"String\"}],\"default\":null},{\"name\":\"clusteringPlan\",\"type\":[\"null\",{\"type\":"
    "\"record\",\"name\":\"HoodieClusteringPlan\",\"fields\":[{\"name\":\"inputGroups\",\"type\":[\"null"
    "\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieClusteringGroup\",\"fields\":["
    "{\"name\":\"slices\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":"
    "\"HoodieSliceInfo\",\"fields\":[{\"name\":\"dataFilePath\",\"type\":[\"null\",{\"type\":\"string\","
    "\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"deltaFilePaths\",\"type\":[\"null\",{"
    "\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}],\"default\":nul"
    "l},{\"name\":\"fileId\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}]},{"
    "\"name\":\"partitionPath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}]"
    ",\"default\":null},{\"name\":\"bootstrapFilePath\",\"type\":[\"null\",{\"type\":\"string\",\"avro.ja"
    "va.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"defau"
    "lt\":1}]}}],\"default\":null},{\"name\":\"metrics\",\"type\":[\"null\",{\"type\":\"map\",\"values\":"
    "\"double\",\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"numOutputFileGroups\",\"t"
    "ype\":[\"int\",\"null\"],\"default\":1},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"m"
    "ap\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String"
    "\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}}],\"default"
    "\":null},{\"name\":\"strategy\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieClusteringS"
    "trategy\",\"fields\":[{\"name\":\"strategyClassName\",\"type\":[\"null\",{\"type\":\"string\",\"avro"
    ".java.string\":\"String\"}],\"default\":null},{\"name\":\"strategyParams\",\"type\":[\"null\",{\"typ"
    "e\":\"map\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\""
    "String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1}]}],\"d"
    "efault\":null},{\"name\":\"extraMetadata\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\""
    ":\"string\",\"avro.java.string\":\"String\"},\"avro.java.string\":\"String\"}],\"default\":null},{\""
    "name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"preserveHoodieMetadata\","
    "\"type\":[\"null\",\"boolean\"],\"default\":null}]}],\"default\":null},{\"name\":\"extraMetadata\",\""
    "type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"string\",\"avro.java.string\":\"String\"},"
    "\"avro.java.string\":\"String\"}],\"default\":null},{\"name\":\"version\",\"type\":[\"int\",\"null\""
    "],\"default\":1}]}";

/* no fixture: T_C.savepoint, printed from the generated class of Hudi 1.0.2 and 1.2.0
 * (identical; 689 bytes) */
static const char SCHEMA_SAVEPOINT_METADATA[] =
    "{\"type\":\"record\",\"name\":\"HoodieSavepointMetadata\",\"namespace\":\"org.apache.hudi.avro.m"
    "odel\",\"fields\":[{\"name\":\"savepointedBy\",\"type\":{\"type\":\"string\",\"avro.java.string"
    "\":\"String\"}},{\"name\":\"savepointedAt\",\"type\":\"long\"},{\"name\":\"comments\",\"type\":{"
    "\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"partitionMetadata\",\"type\":{"
    "\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\":\"HoodieSavepointPartitionMetadata\","
    "\"fields\":[{\"name\":\"partitionPath\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"Str"
    "ing\"}},{\"name\":\"savepointDataFile\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"strin"
    "g\",\"avro.java.string\":\"String\"}}}]},\"avro.java.string\":\"String\"}},{\"name\":\"version\""
    ",\"type\":[\"int\",\"null\"],\"default\":1}]}";

/* no fixture: R.restore.requested, printed from the generated class of Hudi 1.0.2 and 1.2.0
 * (identical; 557 bytes) */
static const char SCHEMA_RESTORE_PLAN[] =
    "{\"type\":\"record\",\"name\":\"HoodieRestorePlan\",\"namespace\":\"org.apache.hudi.avro.model\""
    ",\"fields\":[{\"name\":\"instantsToRollback\",\"type\":{\"type\":\"array\",\"items\":{\"type\":"
    "\"record\",\"name\":\"HoodieInstantInfo\",\"fields\":[{\"name\":\"commitTime\",\"type\":{\"type"
    "\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"action\",\"type\":{\"type\":\"string"
    "\",\"avro.java.string\":\"String\"}}]},\"default\":null},\"default\":[]},{\"name\":\"version\","
    "\"type\":[\"int\",\"null\"],\"default\":2},{\"name\":\"savepointToRestoreTimestamp\",\"type\":["
    "\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],\"default\":null}]}";

/* no fixture: R_C.restore, printed from the generated class of Hudi 1.0.2 and 1.2.0
 * (identical; 2005 bytes) */
static const char SCHEMA_RESTORE_METADATA[] =
    "{\"type\":\"record\",\"name\":\"HoodieRestoreMetadata\",\"namespace\":\"org.apache.hudi.avro.mod"
    "el\",\"fields\":[{\"name\":\"startRestoreTime\",\"type\":{\"type\":\"string\",\"avro.java.string"
    "\":\"String\"}},{\"name\":\"timeTakenInMillis\",\"type\":\"long\"},{\"name\":\"instantsToRollbac"
    "k\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":\"String\"}"
    "}},{\"name\":\"hoodieRestoreMetadata\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"array\""
    ",\"items\":[\"null\",{\"type\":\"record\",\"name\":\"HoodieRollbackMetadata\",\"fields\":[{\"nam"
    "e\":\"startRollbackTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"nam"
    "e\":\"timeTakenInMillis\",\"type\":\"long\"},{\"name\":\"totalFilesDeleted\",\"type\":\"int\"},{"
    "\"name\":\"commitsRollback\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro."
    "java.string\":\"String\"}}},{\"name\":\"partitionMetadata\",\"type\":{\"type\":\"map\",\"values"
    "\":{\"type\":\"record\",\"name\":\"HoodieRollbackPartitionMetadata\",\"fields\":[{\"name\":\"par"
    "titionPath\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"success"
    "DeleteFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"avro.java.string\":"
    "\"String\"}}},{\"name\":\"failedDeleteFiles\",\"type\":{\"type\":\"array\",\"items\":{\"type\":"
    "\"string\",\"avro.java.string\":\"String\"}}},{\"name\":\"rollbackLogFiles\",\"type\":[\"null\","
    "{\"type\":\"map\",\"values\":\"long\",\"avro.java.string\":\"String\"}],\"default\":null},{\"nam"
    "e\":\"logFilesFromFailedCommit\",\"type\":[\"null\",{\"type\":\"map\",\"values\":\"long\",\"avro"
    ".java.string\":\"String\"}],\"default\":null}]},\"avro.java.string\":\"String\"}},{\"name\":\"ve"
    "rsion\",\"type\":[\"int\",\"null\"],\"default\":1},{\"name\":\"instantsRollback\",\"type\":{\"ty"
    "pe\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"HoodieInstantInfo\",\"fields\":[{\"name"
    "\":\"commitTime\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}},{\"name\":\"ac"
    "tion\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}]},\"default\":[]},\"defau"
    "lt\":[]}]}],\"default\":null},\"avro.java.string\":\"String\"}},{\"name\":\"version\",\"type\":["
    "\"int\",\"null\"],\"default\":1},{\"name\":\"restoreInstantInfo\",\"type\":{\"type\":\"array\","
    "\"items\":\"HoodieInstantInfo\",\"default\":null},\"default\":[]}]}";

static const struct {
  const char *json;
  size_t len;
  const char *name;
} SCHEMAS[HUDI_TL_SCHEMA_COUNT] = {
    {SCHEMA_COMMIT_METADATA, sizeof SCHEMA_COMMIT_METADATA - 1, "HoodieCommitMetadata"},
    {SCHEMA_REPLACE_COMMIT_METADATA, sizeof SCHEMA_REPLACE_COMMIT_METADATA - 1, "HoodieReplaceCommitMetadata"},
    {SCHEMA_COMPACTION_PLAN, sizeof SCHEMA_COMPACTION_PLAN - 1, "HoodieCompactionPlan"},
    {SCHEMA_CLEANER_PLAN, sizeof SCHEMA_CLEANER_PLAN - 1, "HoodieCleanerPlan"},
    {SCHEMA_CLEAN_METADATA, sizeof SCHEMA_CLEAN_METADATA - 1, "HoodieCleanMetadata"},
    {SCHEMA_ROLLBACK_PLAN, sizeof SCHEMA_ROLLBACK_PLAN - 1, "HoodieRollbackPlan"},
    {SCHEMA_ROLLBACK_METADATA, sizeof SCHEMA_ROLLBACK_METADATA - 1, "HoodieRollbackMetadata"},
    {SCHEMA_REQUESTED_REPLACE, sizeof SCHEMA_REQUESTED_REPLACE - 1, "HoodieRequestedReplaceMetadata"},
    {SCHEMA_REQUESTED_REPLACE_V6, sizeof SCHEMA_REQUESTED_REPLACE_V6 - 1, "HoodieRequestedReplaceMetadata"},
    {SCHEMA_SAVEPOINT_METADATA, sizeof SCHEMA_SAVEPOINT_METADATA - 1, "HoodieSavepointMetadata"},
    {SCHEMA_RESTORE_PLAN, sizeof SCHEMA_RESTORE_PLAN - 1, "HoodieRestorePlan"},
    {SCHEMA_RESTORE_METADATA, sizeof SCHEMA_RESTORE_METADATA - 1, "HoodieRestoreMetadata"},
};

const char *hudi_tl_schema_json(hudi_tl_schema_id id, size_t *len) {
  if ((unsigned)id >= HUDI_TL_SCHEMA_COUNT) {
    if (len) *len = 0;
    return NULL;
  }
  if (len) *len = SCHEMAS[id].len;
  return SCHEMAS[id].json;
}

const char *hudi_tl_schema_record_name(hudi_tl_schema_id id) {
  return (unsigned)id < HUDI_TL_SCHEMA_COUNT ? SCHEMAS[id].name : NULL;
}

hudi_status hudi_tl_schema_parse(hudi_avro_schema **out, hudi_tl_schema_id id, hudi_error *err) {
  size_t len;
  const char *json = hudi_tl_schema_json(id, &len);
  if (!json) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "unknown timeline schema id %d", (int)id);
  return hudi_avro_schema_parse(out, json, len, err);
}
