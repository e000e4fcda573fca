import pytest

from play2prompt.adapters.stabletoolbench.data import ENV_DIR

from .stb_fixtures import slice_root


@pytest.fixture(autouse=True)
def stb_slice_env(monkeypatch):
    """Point the product's StableToolBench default (``P2P_STB_DIR``) at the slice the tests
    use: the shared one next to the checkout, else its copy among the fixtures."""
    monkeypatch.setenv(ENV_DIR, str(slice_root()))
