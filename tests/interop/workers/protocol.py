"""The line protocol between the interop tests and their oracle workers.

Both workers (Spark under the Spark virtual env, hudi-rs under its own) import this file; it needs
only the standard library, since each worker runs under a different interpreter and set of packages.

One request per line on stdin, one answer per line on the protocol stream:
    request  {"op": "read_table", "args": {...}}
    answer   {"ok": true, "result": ...}  or  {"ok": false, "error": "...", "traceback": "..."}
The first line a worker writes is {"ok": true, "result": {"ready": true, ...}} once it can serve.

Values that JSON cannot carry are tagged, identically for both engines, so that rows from Spark and
from hudi-rs compare with ==: {"$decimal": "75.00"}, {"$date": "2024-01-02"},
{"$ts": "2024-01-02T03:04:05.123456"} (UTC, no zone), {"$bytes": "<hex>"}.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import os
import sys
import traceback
from typing import Any, Callable, Dict, TextIO


def to_json_value(v: Any) -> Any:
    """A JSON-safe, engine-neutral form of one cell value (recursing into structs, maps, lists)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        # NaN and infinities are not JSON numbers; tag them so they still compare equal.
        return v if v == v and v not in (float("inf"), float("-inf")) else {"$float": repr(v)}
    if isinstance(v, decimal.Decimal):
        return {"$decimal": str(v)}
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return {"$ts": v.isoformat(timespec="microseconds")}
    if isinstance(v, _dt.date):
        return {"$date": v.isoformat()}
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"$bytes": bytes(v).hex()}
    if isinstance(v, dict):
        # Map keys may be non-strings; keep them as a sorted list of pairs when they are.
        if all(isinstance(k, str) for k in v):
            return {k: to_json_value(x) for k, x in v.items()}
        pairs = [[to_json_value(k), to_json_value(x)] for k, x in v.items()]
        return {"$map": sorted(pairs, key=lambda p: json.dumps(p, sort_keys=True))}
    if isinstance(v, (list, tuple)):
        return [to_json_value(x) for x in v]
    raise TypeError(f"cannot encode a {type(v).__name__} value: {v!r}")


def open_protocol_stream() -> TextIO:
    """Takes the process's stdout for the protocol and points fd 1 at stderr.

    A JVM (or native code) started after this writes its own stdout to stderr, so nothing but
    protocol lines ever reaches the test process's pipe.
    """
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


def serve(proto: TextIO, handlers: Dict[str, Callable[..., Any]], ready: Dict[str, Any]) -> None:
    """Answers requests from stdin until EOF or a "shutdown" request."""

    def send(msg: Dict[str, Any]) -> None:
        proto.write(json.dumps(msg, sort_keys=True) + "\n")
        proto.flush()

    send({"ok": True, "result": {"ready": True, **ready}})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            op = req["op"]
            if op == "shutdown":
                send({"ok": True, "result": None})
                return
            if op not in handlers:
                raise KeyError(f"unknown op {op!r}; known: {sorted(handlers)}")
            send({"ok": True, "result": handlers[op](**req.get("args", {}))})
        except Exception as e:  # noqa: BLE001 - every failure goes back to the test as an answer
            send({"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()})
