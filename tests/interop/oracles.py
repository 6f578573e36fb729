"""Clients for the oracle workers: Apache Spark + Apache Hudi, and hudi-rs.

Each oracle is a long-lived subprocess (tests/interop/workers/) under its own virtual env, made by
dev/setup-interop.sh, which records where everything is in $HUDI_INTEROP_HOME/interop.env. The tests
talk to it through JSON lines (see workers/protocol.py); its stderr (JVM logs) goes to a log file
whose tail is attached to every error.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

WORKERS = Path(__file__).resolve().parent / "workers"

# Hudi's meta columns. Which of them a reader returns, and their values for log-only file groups
# (_hoodie_file_name) or tables written without meta fields, differ between engines.
META_COLUMNS = (
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
)


class OracleError(RuntimeError):
    """An oracle worker failed, died or timed out."""


def interop_home() -> Path:
    return Path(os.environ.get("HUDI_INTEROP_HOME") or Path.home() / ".cache" / "hudi-c")


@dataclass(frozen=True)
class InteropConfig:
    """What dev/setup-interop.sh installed, read from $HUDI_INTEROP_HOME/interop.env."""

    values: Dict[str, str]

    @classmethod
    def load(cls) -> "InteropConfig":
        env_file = interop_home() / "interop.env"
        if not env_file.is_file():
            raise OracleError(f"{env_file} is missing: run dev/setup-interop.sh first")
        values = {}
        for line in env_file.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                k, _, v = line.partition("=")
                values[k.strip()] = v.strip()
        return cls(values)

    def __getitem__(self, key: str) -> str:
        if key not in self.values:
            raise OracleError(f"interop.env has no {key}: re-run dev/setup-interop.sh")
        return self.values[key]

    def worker_env(self) -> Dict[str, str]:
        """The environment of a worker: Java 17 first on PATH, UTC, nothing of the test's Python."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "SPARK_HOME")}
        java_home = self["JAVA_HOME"]
        env.update(
            JAVA_HOME=java_home,
            PATH=f"{java_home}/bin:{env.get('PATH', '/usr/bin:/bin')}",
            TZ="UTC",
            PYSPARK_PYTHON=self["SPARK_PYTHON"],
            PYSPARK_DRIVER_PYTHON=self["SPARK_PYTHON"],
            PYTHONUNBUFFERED="1",
        )
        return env


@dataclass
class Frame:
    """Rows an engine returned: column names, engine type names, rows as dicts of tagged values."""

    columns: List[str]
    types: List[str]
    rows: List[Dict[str, Any]] = field(default_factory=list)

    def canonical(self, exclude: Iterable[str] = META_COLUMNS) -> List[str]:
        """The rows as sorted JSON strings without the excluded columns: equal lists, equal rows."""
        drop = set(exclude)
        return sorted(json.dumps({k: v for k, v in r.items() if k not in drop}, sort_keys=True) for r in self.rows)

    def data_columns(self, exclude: Iterable[str] = META_COLUMNS) -> List[str]:
        drop = set(exclude)
        return sorted(c for c in self.columns if c not in drop)


def row_diff(a: Sequence[str], b: Sequence[str], names=("left", "right"), limit: int = 10) -> str:
    """A readable difference of two canonical row lists (multisets)."""
    from collections import Counter

    ca, cb = Counter(a), Counter(b)
    only_a = list((ca - cb).elements())[:limit]
    only_b = list((cb - ca).elements())[:limit]
    lines = [f"{len(a)} rows from {names[0]}, {len(b)} from {names[1]}"]
    lines += [f"only in {names[0]}: {r}" for r in only_a]
    lines += [f"only in {names[1]}: {r}" for r in only_b]
    return "\n".join(lines)


class Worker:
    """One oracle subprocess speaking the JSON-lines protocol."""

    def __init__(self, name: str, argv: List[str], env: Dict[str, str], work_dir: Path,
                 start_timeout: float = 300.0, call_timeout: float = 600.0) -> None:
        self.name = name
        self.call_timeout = call_timeout
        work_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = work_dir / f"{name}.log"
        self._log = open(self.log_path, "wb")
        self._proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, env=env,
            cwd=str(work_dir), text=True, encoding="utf-8", bufsize=1,
        )
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._pump, name=f"{name}-stdout", daemon=True).start()
        self.info: Dict[str, Any] = self._receive(start_timeout, "start-up")

    def _pump(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def log_tail(self, n: int = 40) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def _fail(self, what: str) -> OracleError:
        return OracleError(f"{self.name} worker: {what}\n--- last lines of {self.log_path} ---\n{self.log_tail()}")

    def _receive(self, timeout: float, what: str) -> Any:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self._proc.kill()
            raise self._fail(f"no answer to {what} within {timeout:.0f} s; killed") from None
        if line is None:
            raise self._fail(f"exited (code {self._proc.wait()}) during {what}")
        msg = json.loads(line)
        if not msg.get("ok"):
            raise OracleError(f"{self.name} worker: {what} failed: {msg.get('error')}\n{msg.get('traceback', '')}")
        return msg["result"]

    def call(self, op: str, timeout: Optional[float] = None, **args: Any) -> Any:
        if self._proc.poll() is not None:
            raise self._fail(f"not running (exit code {self._proc.returncode})")
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps({"op": op, "args": args}) + "\n")
        self._proc.stdin.flush()
        return self._receive(timeout or self.call_timeout, op)

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self.call("shutdown", timeout=60)
                self._proc.wait(timeout=60)
            except (OracleError, OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        self._log.close()


class SparkOracle(Worker):
    """Apache Spark (local[2]) with one Apache Hudi Spark bundle; one SparkSession for its life."""

    def __init__(self, config: InteropConfig, work_dir: Path, jar_key: str = "HUDI_JAR",
                 version_key: str = "HUDI_VERSION", driver_classpath: bool = False) -> None:
        self.hudi_version = config[version_key]
        argv = [config["SPARK_PYTHON"], str(WORKERS / "spark_worker.py"), "--hudi-jar", config[jar_key],
                "--hudi-version", self.hudi_version, "--work-dir", str(work_dir)]
        if driver_classpath:  # see spark_worker.start_session
            argv.append("--driver-classpath")
        super().__init__(f"spark-hudi-{self.hudi_version}", argv, config.worker_env(), work_dir)

    def read_table(self, path: str, options: Optional[Dict[str, str]] = None) -> Frame:
        """A DataFrame read: spark.read.format("hudi").options(**options).load(path)."""
        return Frame(**self.call("read_table", path=path, options=options or {}))

    def sql(self, query: str) -> Frame:
        return Frame(**self.call("sql", query=query))

    def table_config(self, path: str) -> Dict[str, Any]:
        """name, type, version, timeline_layout, properties, as HoodieTableMetaClient loads them."""
        return self.call("table_config", path=path)

    def timeline(self, path: str) -> List[Dict[str, Any]]:
        """The active timeline from HoodieTableMetaClient: requested_time, completion_time, action, state."""
        return self.call("timeline", path=path)


class HudiRsOracle(Worker):
    """hudi-rs through its Python binding (the PyPI package `hudi`)."""

    def __init__(self, config: InteropConfig, work_dir: Path) -> None:
        argv = [config["HUDI_RS_PYTHON"], str(WORKERS / "hudirs_worker.py")]
        super().__init__("hudi-rs", argv, config.worker_env(), work_dir, start_timeout=120)

    def read_table(self, path: str, options: Optional[Dict[str, str]] = None,
                   read_options: Optional[Dict[str, str]] = None) -> Frame:
        """HudiTableBuilder(path).with_options(options).build().read(HudiReadOptions(hudi_options=read_options))."""
        return Frame(**self.call("read_table", path=path, options=options or {}, read_options=read_options or {}))

    def table_info(self, path: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        return self.call("table_info", path=path, options=options or {})

    def timeline(self, path: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """Completed commits / deltacommits / replacecommits / clustering commits and the latest commit."""
        return self.call("timeline", path=path, options=options or {})
