"""Every registered optimization method keeps the optimizer contract
(play2prompt.testing.optimizers): the built-in ones and a third-party one registered by entry
point; a method without a case here fails the registration test."""

from importlib.metadata import EntryPoint

import pytest

from play2prompt import optimizers, plugins
from play2prompt.testing.optimizers import OptimizerContract
from play2prompt.tools.loading import load_tools
from tests.baselines.fakes import baseline_lm
from tests.conftest import EXAMPLES

THIRD_PARTY = "mine"
CASES = (*optimizers.BUILTIN_OPTIMIZERS, THIRD_PARTY)


@pytest.fixture
def with_third_party(monkeypatch):
    """tests/baselines/plugin_method.py, registered by entry point."""
    point = EntryPoint(THIRD_PARTY, "tests.baselines.plugin_method",
                       optimizers.ENTRY_POINT_GROUP)
    real = plugins.entry_points
    monkeypatch.setattr(plugins, "entry_points", lambda *, group: [point] if group ==
                        optimizers.ENTRY_POINT_GROUP else real(group=group))


@pytest.fixture(params=CASES)
def method(request, with_third_party):
    return request.param


@pytest.fixture
def generator():
    return baseline_lm


@pytest.fixture
def tools():
    return [t for t in load_tools(EXAMPLES / "tools.json")
            if t.name in ("loan_payment", "convert_units")]


@pytest.fixture
def base_dir():
    return EXAMPLES


class TestEveryMethod(OptimizerContract):
    pass


def test_every_registered_method_has_a_case(with_third_party):
    assert set(optimizers.available_optimizers()) <= set(CASES)
