"""A real OpenAI-compatible HTTP server, offline: the embedded runtime's llama.cpp server on
loopback with the default embedded model (what llama-server or vLLM would serve)."""

import socket

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="package")
def smol_file():
    """The default embedded model's file (SmolLM2-135M), or the test skipped with the reason."""
    pytest.importorskip("xllamacpp")
    from play2prompt.errors import LMError
    from play2prompt.lm.assemble import model_file
    from play2prompt.lm.models import BUILTIN_MODELS

    try:
        return model_file(BUILTIN_MODELS["smollm2-135m"])
    except LMError as exc:
        pytest.skip(f"the embedded model's weights are not installed: {exc}")


@pytest.fixture(scope="package")
def llama_server(smol_file):
    """The server's address (``http://127.0.0.1:PORT``), one for the tests of this package."""
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = str(smol_file)
    params.n_ctx = 2048
    params.n_parallel = 1
    params.verbosity = -1
    params.hostnames = ["127.0.0.1"]
    params.port = _free_port()
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = 1
    server = xlc.Server(params)
    yield server.listening_address
    del server
