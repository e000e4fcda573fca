"""Servers over finished runs: :mod:`.http` (``p2p serve``, a read-only FastAPI app) and
:mod:`.mcp_server` (``p2p mcp``, the real tools over MCP with the optimized docs). Each module
imports its framework when used."""
