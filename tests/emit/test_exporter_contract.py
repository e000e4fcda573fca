"""Every registered export format keeps the exporter contract (play2prompt.testing.exporters)."""

import pytest

from play2prompt.emit import available_exporters, get_exporter
from play2prompt.results import load_run_result
from play2prompt.testing.exporters import ExporterContract
from tests.emit.stored import make_stored_run


@pytest.fixture(params=sorted(available_exporters()))
def exporter(request):
    return get_exporter(request.param)


@pytest.fixture
def run(tmp_path):
    return load_run_result(make_stored_run(tmp_path / "runs"))


class TestEveryExporter(ExporterContract):
    pass
