"""An ASGI app served by uvicorn until Ctrl-C or SIGTERM (``p2p serve``, ``p2p mcp --http``).

``uvicorn.run`` shuts down gracefully on Ctrl-C, then swallows the interrupt: the command would
end with exit code 0 as if nothing had happened. Here the server is run directly, so after the
graceful shutdown uvicorn raises the signal it caught again and the interrupt reaches the caller
(``p2p`` ends with 130, like every other command).
"""

from __future__ import annotations

from typing import Any


def serve_asgi(app: Any, host: str, port: int, log_level: str = "info") -> None:
    """Serve ``app`` on ``host:port`` until interrupted (:class:`KeyboardInterrupt` after
    a graceful shutdown). A port that cannot be bound ends the process as uvicorn does."""
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=log_level)).run()
