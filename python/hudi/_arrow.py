"""Conversions between Arrow stream capsules returned by the extension and pyarrow."""

from __future__ import annotations

from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]

from hudi import _hudi


class _CapsuleStream:
    """Holds an 'arrow_array_stream' capsule for the PyCapsule protocol."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._capsule


def reader_from_capsule(capsule: Any) -> pa.RecordBatchReader:
    """Wraps a stream capsule from the extension in a pyarrow RecordBatchReader."""
    return pa.RecordBatchReader.from_stream(_CapsuleStream(capsule))


def roundtrip(data: Any) -> list[pa.RecordBatch]:
    """Sends Arrow data through libhudi's import and builders and back.

    Accepts anything with ``__arrow_c_stream__`` or ``__arrow_c_array__``.
    Used by the tests to check the Arrow layer against pyarrow.
    """
    return list(reader_from_capsule(_hudi._arrow_roundtrip(data)))
