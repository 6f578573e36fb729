"""Type stubs of the native extension hudi._hudi (C, CPython limited API)."""

from typing import Any, Dict, List, Optional, Tuple

def version() -> str:
    """The libhudi version string."""

def _raise_status(code: int, message: str) -> None:
    """Test hook: raises the exception libhudi maps the status code to."""

def _arrow_roundtrip(data: Any) -> Any:
    """Imports Arrow data (``__arrow_c_stream__`` / ``__arrow_c_array__``) through libhudi's Arrow
    layer, rebuilds every batch with its builders and returns an ``arrow_array_stream`` PyCapsule."""

class HudiError(Exception):
    """Base class of every error raised by hudi."""

class HudiInvalidInputError(HudiError, ValueError):
    """Bad input: an unknown column, a missing key, a wrong type, invalid SQL."""

class HudiConflictError(HudiError):
    """A concurrent writer committed first."""

class HudiCorruptDataError(HudiError):
    """Stored bytes do not follow their format (file and offset in the message)."""

class HudiIOError(HudiError, OSError):
    """The storage failed."""

class HudiNotFoundError(HudiIOError, FileNotFoundError):
    """A table, file or instant does not exist."""

class HudiUnsupportedError(HudiError, NotImplementedError):
    """Valid, but not supported by hudi-c."""

class Table:
    """A Hudi table opened by libhudi (hudi_table_open)."""

    def __init__(self, base_uri: str, options: Optional[Dict[str, str]] = None) -> None: ...
    def name(self) -> str: ...
    def table_type(self) -> str: ...
    def base_uri(self) -> str: ...
    def version(self) -> int: ...
    def timeline_layout(self) -> int: ...
    def properties(self) -> Dict[str, str]: ...
    def instants(self) -> List[Tuple[str, str, str, str, str, int]]: ...
