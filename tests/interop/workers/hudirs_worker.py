"""Oracle worker: hudi-rs (the PyPI package `hudi`), serving JSON requests.

Run under the hudi-rs virtual env's python (see dev/setup-interop.sh); that env's `hudi` is hudi-rs,
not this project's package of the same name, which is why it lives in a process of its own.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol import open_protocol_stream, serve, to_json_value  # noqa: E402


class Handlers:
    def __init__(self, hudi) -> None:
        self.hudi = hudi

    def _table(self, path: str, options: Optional[Dict[str, str]] = None):
        return self.hudi.HudiTableBuilder.from_base_uri(path).with_options(dict(options or {})).build()

    def table_info(self, path: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        t = self._table(path, options)
        return {
            "name": t.table_name,
            "type": t.table_type,
            "is_mor": t.is_mor,
            "timezone": t.timezone,
            # hudi-rs exposes no version getter; its table configs (hoodie.properties merged with
            # the options) are in hudi_options().
            "hudi_options": t.hudi_options(),
        }

    def timeline(self, path: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """The completed instants hudi-rs 0.5's HudiTimeline exposes, by getter."""
        tl = self._table(path, options).get_timeline()

        def enc(instants) -> List[Dict[str, Any]]:
            return [
                {"timestamp": i.timestamp, "action": i.action, "state": str(i.state), "epoch_mills": i.epoch_mills}
                for i in instants
            ]

        out: Dict[str, Any] = {
            "commits": enc(tl.get_completed_commits()),
            "deltacommits": enc(tl.get_completed_deltacommits()),
            "replacecommits": enc(tl.get_completed_replacecommits()),
            "clustering_commits": enc(tl.get_completed_clustering_commits()),
        }
        try:
            out["latest_commit_timestamp"] = tl.get_latest_commit_timestamp()
        except Exception as e:  # noqa: BLE001 - an empty timeline raises; report it as data
            out["latest_commit_timestamp"] = None
            out["latest_commit_error"] = f"{type(e).__name__}: {e}"
        return out

    def read_table(
        self,
        path: str,
        options: Optional[Dict[str, str]] = None,
        read_options: Optional[Dict[str, str]] = None,
    ) -> Dict[str, Any]:
        """HudiTable.read(HudiReadOptions(hudi_options=read_options)), as rows."""
        import pyarrow as pa

        t = self._table(path, options)
        batches = t.read(self.hudi.HudiReadOptions(hudi_options=dict(read_options or {})))
        schema = batches[0].schema if batches else t.get_schema_with_meta_fields()
        table = pa.Table.from_batches(batches, schema=schema)
        rows = table.to_pylist(maps_as_pydicts="strict")
        return {
            "columns": list(table.schema.names),
            "types": [str(f.type) for f in table.schema],
            "rows": [to_json_value(r) for r in rows],
        }


def main() -> None:
    proto = open_protocol_stream()
    import hudi

    h = Handlers(hudi)
    ops = {"table_info": h.table_info, "timeline": h.timeline, "read_table": h.read_table}
    serve(proto, ops, {"engine": "hudi-rs", "hudi_rs_version": hudi.__version__})


if __name__ == "__main__":
    main()
