"""A description checked by execution (issue 27): the generator's guess at what an undocumented
tool computes, written as one Python expression over the tool's parameters, is evaluated on
the arguments of calls the tool really ran, and its values are compared with the tool's
outputs. A small model names the wrong operation often ("returns their sum" beside
``gcd(15, 9) -> 3``: it cannot check arithmetic in its head); code can.

The expression is untrusted model output. It is evaluated by ``simpleeval`` (a maintained
expression evaluator: no imports, no statements, no dunder attributes, bounded powers and
comprehensions) with a fixed set of pure functions and the ``math`` and ``statistics``
functions, in a child Python process with a wall-clock timeout and, on POSIX, CPU and memory
limits, so neither a hostile nor a runaway expression (``math.factorial(10**9)``) reaches the
run. Nothing the expression computes is executed as a tool.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from play2prompt.numeric import close

TIMEOUT_S = 10.0          # wall clock for one expression on all its calls
CPU_S = 5                 # CPU seconds of the child (POSIX)
MEMORY = 1 << 30          # address space of the child (POSIX), bytes
REL_TOL = 1e-6            # numbers match within this relative tolerance...
MAX_DECIMALS = 6          # ...or when the value rounds to the output's decimals (up to this)
MOSTLY = 0.8              # an expression holds on this share of the calls, when they are...
MOSTLY_FROM = 5           # ...at least this many (BFCL's gcd gives -1 for gcd(42, -13))
MIN_DEFINED = 2           # calls an expression must be defined on (not raise) to hold

# The child: reads {"expressions": [...], "calls": [arguments, ...]}, writes for each
# expression one {"value"} or {"error"} per call. Written with -I (isolated: no cwd, no user
# site, no PYTHON* variables).
_CHILD = r"""
import json, math, statistics, sys, types
from simpleeval import EvalWithCompoundTypes
job = json.load(sys.stdin)
def spaced(mod):
    return types.SimpleNamespace(**{k: getattr(mod, k) for k in dir(mod)
                                    if not k.startswith("_") and callable(getattr(mod, k))},
                                 **({"pi": math.pi, "e": math.e, "inf": math.inf}
                                    if mod is math else {}))
FUNCTIONS = {f.__name__: f for f in (abs, min, max, sum, len, round, sorted, range, zip,
             enumerate, list, tuple, dict, set, all, any, int, float, str, bool, pow, divmod,
             reversed, bin, hex, oct, chr, ord)}
def plain(v):
    if isinstance(v, complex):
        return {"real": v.real, "imaginary": v.imag}
    if isinstance(v, (list, tuple, set, frozenset, range, map, zip, reversed)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    return v
out = []
for expression in job["expressions"]:
    row = []
    for args in job["calls"]:
        names = {"math": spaced(math), "statistics": spaced(statistics), **args}
        try:
            value = EvalWithCompoundTypes(names=names, functions=FUNCTIONS).eval(expression)
            row.append({"value": json.loads(json.dumps(plain(value), allow_nan=True))})
        except Exception as exc:
            row.append({"error": f"{type(exc).__name__}: {exc}"[:200]})
    out.append(row)
json.dump(out, sys.stdout)
"""


def _limits() -> None:  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (CPU_S, CPU_S))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def evaluate(expression: str, calls: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``expression``'s value (``{"value": v}``) or error (``{"error": text}``) on each call's
    arguments, in order, from the sandboxed child. Every call gets the same error when the
    child fails as a whole (timeout, memory)."""
    return evaluate_many([expression], calls)[0]


def evaluate_many(expressions: Sequence[str], calls: Sequence[Mapping[str, Any]]
                  ) -> list[list[dict[str, Any]]]:
    """:func:`evaluate` for several expressions in one child (one row each). When the child
    fails as a whole, every expression gets the same error on every call."""
    job = json.dumps({"expressions": list(expressions), "calls": [dict(c) for c in calls]})
    try:
        done = subprocess.run([sys.executable, "-I", "-c", _CHILD], input=job,
                              capture_output=True, text=True, timeout=TIMEOUT_S,
                              preexec_fn=_limits if sys.platform != "win32" else None)
        out = json.loads(done.stdout) if done.returncode == 0 else None
    except subprocess.TimeoutExpired:
        out = None
        reason = f"took over {TIMEOUT_S:g} s"
    except (OSError, ValueError) as exc:
        out, reason = None, f"{type(exc).__name__}: {exc}"
    else:
        lines = done.stderr.strip().splitlines() or [f"exit {done.returncode}"]
        reason = (lines[-1][:200] if done.returncode >= 0 else
                  f"stopped by signal {-done.returncode} (over its CPU or memory limit)")
    if not isinstance(out, list) or len(out) != len(expressions) or any(
            not isinstance(row, list) or len(row) != len(calls) for row in out):
        return [[{"error": reason} for _ in calls] for _ in expressions]
    return out


def same(value: Any, output: Any) -> bool:
    """Whether a computed ``value`` is the tool's ``output``: numbers within
    :data:`REL_TOL` or equal once rounded to the output's decimals (a tool that rounds to
    cents), lists and dicts item by item, anything else equal."""
    if isinstance(output, bool) or isinstance(value, bool):
        return isinstance(output, bool) and isinstance(value, bool) and value == output
    if isinstance(output, (int, float)) and isinstance(value, (int, float)):
        if close(value, output, rel_tol=REL_TOL, abs_tol=1e-12):   # ints past float range too
            return True
        places = _decimals(output)
        return places is not None and round(value, places) == output
    if isinstance(output, list) and isinstance(value, list):
        return len(value) == len(output) and all(map(same, value, output))
    if isinstance(output, dict) and isinstance(value, dict):
        return value.keys() == output.keys() and all(same(value[k], output[k]) for k in output)
    if isinstance(output, str) and isinstance(value, str):
        return value.strip() == output.strip()
    return value == output


def _decimals(number: float) -> int | None:
    try:
        text = repr(float(number))
    except OverflowError:            # an integer past float range has no decimals to round to
        return None
    if "e" in text or "inf" in text or "nan" in text:
        return None
    places = len(text.split(".")[1].rstrip("0"))
    return places if places <= MAX_DECIMALS else None


@dataclass(frozen=True)
class Check:
    """How an expression did on the calls it was checked on."""

    expression: str
    checked: int                           # calls compared
    matched: int
    misses: tuple[str, ...] = ()           # "f(a=1) gives 2; the tool returned 3", a few
    raised: int = 0                        # calls the expression raised on (its domain ends)

    @property
    def defined(self) -> int:
        """The calls the expression gave a value on."""
        return self.checked - self.raised

    @property
    def holds(self) -> bool:
        """It gave every output where it is defined, or (on :data:`MOSTLY_FROM` such calls or
        more) at least :data:`MOSTLY` of them: a tool's quirk on an odd input (a sign, an
        edge) does not sink the operation it computes everywhere else. A call it raised on
        lies outside its domain (``math.perm(5, -3)`` raises where BFCL's permutations,
        written as a loop, return 0.003); it must be defined on at least
        :data:`MIN_DEFINED` calls and on half of them."""
        defined = self.defined
        if defined < MIN_DEFINED or 2 * defined < self.checked:
            return False
        if defined >= MOSTLY_FROM:
            return self.matched >= MOSTLY * defined
        return self.matched == defined


def checkable(output: Any) -> bool:
    """An output a value can be compared with (not one the store kept by hash)."""
    return not (isinstance(output, Mapping) and set(output) == {"$blob"})


def check(expression: str, calls: Sequence[tuple[str, Mapping[str, Any], Any]],
          shown: int = 3) -> Check:
    """``expression`` on ``calls`` (each: the call as Python, its arguments, its output),
    with up to ``shown`` misses described for the generator."""
    return checked(expression, calls, evaluate(expression, [args for _, args, _ in calls]),
                   shown)


def checked(expression: str, calls: Sequence[tuple[str, Mapping[str, Any], Any]],
            results: Sequence[Mapping[str, Any]], shown: int = 3) -> Check:
    """The :class:`Check` of ``expression`` from its ``results`` on ``calls``."""
    matched, raised, misses = 0, 0, []
    for (text, _, output), got in zip(calls, results):
        if "value" in got and same(got["value"], output):
            matched += 1
            continue
        raised += "error" in got
        said = (f"raises {got['error']}" if "error" in got
                else f"gives {json.dumps(got['value'])[:120]}")
        misses.append(f"{text}: your expression {said}; the tool returned "
                      f"{json.dumps(output)[:120]}")
    return Check(expression, len(calls), matched, tuple(misses[:shown]), raised)


def names_any(expression: str, params: Mapping[str, Any]) -> bool:
    """Whether ``expression`` (Python) names one of ``params``: a constant that happens to
    equal every output checked says nothing of the tool."""
    import ast

    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return True       # the evaluator reports the syntax error as a miss
    return any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(tree))


def expression_of(text: str) -> str:
    """The expression in what a model wrote for one: "return a / b", "lambda a, b: a / b",
    "def f(a, b): return a / b" and "result = a / b" are all "a / b"."""
    import re

    text = " ".join(text.split()).rstrip(";").strip()
    parts = [p.strip() for p in text.split(";") if p.strip()]
    if len(parts) > 1 and all(p.startswith(("import ", "from ")) for p in parts[:-1]):
        text = parts[-1]          # "import statistics; statistics.stdev(x)"
    if text.startswith("`") and text.endswith("`"):
        text = text.strip("`").strip()
    if text.startswith("def ") and "return " in text:
        text = text.split("return ", 1)[1]
    elif text.startswith("lambda") and ":" in text:
        text = text.split(":", 1)[1]
    elif text.startswith("return "):
        text = text[len("return "):]
    else:
        text = re.sub(r"^[A-Za-z_]\w*\s*=(?!=)\s*", "", text)
    return text.strip().rstrip(";").strip()
