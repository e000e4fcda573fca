"""Which BFCL functions need the network, found by reading the functions module (never by a
hard-coded list).

A function needs the network when its body uses an HTTP/socket module (``requests``,
``urllib``, ``http``, ``socket``) or an API key (``api_key``, ``os.getenv``/``os.environ``), or
when it calls another function of the module that does.
"""

from __future__ import annotations

import ast

NETWORK_NAMES = {"requests": "calls a web API (requests)", "urllib": "calls a web API (urllib)",
                 "http": "calls a web API (http)", "socket": "opens a socket",
                 "httpx": "calls a web API (httpx)", "api_key": "needs an API key"}


def _direct_reason(fn: ast.FunctionDef) -> str | None:
    names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    found = [reason for name, reason in NETWORK_NAMES.items() if name in names]
    for node in ast.walk(fn):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == "os" and node.attr in ("getenv", "environ")):
            found.append("needs an API key")
    if not found:
        return None
    return " and ".join(dict.fromkeys(found))


def module_functions(source: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(source)
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def network_functions(source: str) -> dict[str, str]:
    """Function name -> why it needs the network, for every function of the module that does."""
    functions = module_functions(source)
    reasons: dict[str, str] = {}
    for name, fn in functions.items():
        reason = _direct_reason(fn)
        if reason:
            reasons[name] = reason
    calls = {name: {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} & set(functions)
             for name, fn in functions.items()}
    changed = True
    while changed:
        changed = False
        for name in functions:
            if name in reasons:
                continue
            via = sorted(calls[name] & set(reasons))
            if via:
                reasons[name] = f"calls {via[0]}, which {reasons[via[0]]}"
                changed = True
    return reasons
