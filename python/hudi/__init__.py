"""hudi: Apache Hudi tables from Python, natively (no JVM, no Spark).

The package is a thin layer over libhudi, the C library: Arrow data goes in
and comes out through the Arrow C Data / Stream interfaces.
"""

from hudi import _hudi
from hudi._hudi import (
    HudiAlreadyExistsError,
    HudiConflictError,
    HudiCorruptDataError,
    HudiError,
    HudiInvalidInputError,
    HudiIOError,
    HudiNotFoundError,
    HudiUnsupportedError,
)
from hudi.read import HudiFileGroupReader, HudiFileSlice, HudiQueryType, HudiReadOptions, HudiRecordBatchStream
from hudi.services import (
    HudiArchiveResult,
    HudiCleanResult,
    HudiCompactResult,
    HudiRestoreResult,
    HudiRollbackResult,
    HudiSavepointInfo,
    HudiSavepointResult,
)
from hudi.table import HudiInstant, HudiTable, HudiTableBuilder, HudiTimeline
from hudi.write import HudiWriteResult

__version__: str = _hudi.version()

__all__ = [
    "__version__",
    "HudiError",
    "HudiInvalidInputError",
    "HudiConflictError",
    "HudiCorruptDataError",
    "HudiIOError",
    "HudiNotFoundError",
    "HudiUnsupportedError",
    "HudiAlreadyExistsError",
    "HudiTable",
    "HudiTableBuilder",
    "HudiTimeline",
    "HudiInstant",
    "HudiReadOptions",
    "HudiQueryType",
    "HudiRecordBatchStream",
    "HudiFileSlice",
    "HudiFileGroupReader",
    "HudiWriteResult",
    "HudiCompactResult",
    "HudiCleanResult",
    "HudiRollbackResult",
    "HudiRestoreResult",
    "HudiSavepointInfo",
    "HudiSavepointResult",
    "HudiArchiveResult",
]
