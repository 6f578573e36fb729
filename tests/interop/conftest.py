"""Session fixtures for the interoperability tests: one Spark worker and one hudi-rs worker.

Run with the main .venv's pytest (which has this project's `hudi` installed) after
dev/setup-interop.sh; dev/test.sh's "Interop tests" tier does both.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python"))  # hudi_fixtures

from oracles import HudiRsOracle, InteropConfig, SparkOracle  # noqa: E402


@pytest.fixture(scope="session")
def interop_config() -> InteropConfig:
    return InteropConfig.load()


@pytest.fixture(scope="session")
def spark(interop_config, tmp_path_factory):
    """Spark 3.5 (local[2]) with the newest Hudi bundle (table version 9 writer)."""
    oracle = SparkOracle(interop_config, tmp_path_factory.mktemp("spark-worker"))
    yield oracle
    oracle.close()


@pytest.fixture(scope="session")
def spark_v8(interop_config, tmp_path_factory):
    """Spark 3.5 with Hudi 1.0.x (table version 8 writer). A second JVM: started only when used.
    Its bundle is on the driver's class path too: Hudi 1.0.x cannot read its metadata table's
    DELETE blocks otherwise (spark_worker.start_session)."""
    oracle = SparkOracle(interop_config, tmp_path_factory.mktemp("spark-v8-worker"),
                         jar_key="HUDI_JAR_V8", version_key="HUDI_VERSION_V8", driver_classpath=True)
    yield oracle
    oracle.close()


@pytest.fixture(scope="session")
def spark_v6(interop_config, tmp_path_factory):
    """Spark 3.5 with Hudi 0.15.x, the last 0.x release (table version 6, timeline layout 1): the
    engines that table version 6 exists for. A third JVM: started only when used."""
    oracle = SparkOracle(interop_config, tmp_path_factory.mktemp("spark-v6-worker"),
                         jar_key="HUDI_JAR_V6", version_key="HUDI_VERSION_V6")
    yield oracle
    oracle.close()


@pytest.fixture(scope="session")
def hudirs(interop_config, tmp_path_factory):
    """hudi-rs's Python binding."""
    oracle = HudiRsOracle(interop_config, tmp_path_factory.mktemp("hudirs-worker"))
    yield oracle
    oracle.close()


def pytest_report_header(config):
    try:
        c = InteropConfig.load()
        return (f"interop oracles: pyspark {c['PYSPARK_VERSION']}, Hudi {c['HUDI_VERSION']}, "
                f"{c['HUDI_VERSION_V8']} and {c['HUDI_VERSION_V6']}, hudi-rs {c['HUDI_RS_VERSION']}")
    except Exception as e:  # noqa: BLE001 - the fixtures report it properly
        return f"interop oracles: not set up ({e})"
