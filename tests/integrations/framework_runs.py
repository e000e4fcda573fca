"""A finished run over examples/tools.py's real functions (a changed doc, a changed parameter
doc, one verified demo) and a sqlite tool (executed through the runtime), for the framework
integrations' tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from play2prompt.tools.loading import load_tools
from play2prompt.tools.model import Tool
from tests.apply.runs import make_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DESCRIPTION = ("Convert a value between units. Units are abbreviations only: km, mi, m, ft, "
               "kg, lb, c, f, l, gal. Returns the converted value and its unit.")
TO_UNIT = "target unit abbreviation, e.g. mi"
REQUEST = "How many miles is 5 km?"
ARGS = {"value": 5, "from_unit": "km", "to_unit": "mi"}
RESULT = {"value": 3.1069, "unit": "mi"}     # what the real convert_units returns for ARGS
SQL_DESCRIPTION = "Names of the items cheaper than max_price (whole dollars), cheapest first."


def example_run(runs_dir: Path, with_sql: bool = False) -> str:
    """The run's id in ``runs_dir``: convert_units and add_days with their real python
    executors (absolute paths), and with ``with_sql`` a sqlite tool ``cheap_items`` whose
    database is ``runs_dir/shop.sqlite``."""
    tools = [_absolute(t) for t in load_tools(EXAMPLES / "tools.json")
             if t.name in ("convert_units", "add_days")]
    docs = {"convert_units": {"description": DESCRIPTION, "params": {"to_unit": TO_UNIT},
                              "demos": [(REQUEST, ARGS)]}}
    if with_sql:
        tools.append(_sql_tool(runs_dir))
        docs["cheap_items"] = {"description": SQL_DESCRIPTION}
    return make_run(runs_dir, tools, docs)


def _absolute(tool: Tool) -> Tool:
    from dataclasses import replace

    ref = str(tool.executor["python"])
    return replace(tool, executor={"python": str(EXAMPLES / ref)})


def _sql_tool(folder: Path) -> Tool:
    db = folder / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE items (name TEXT, price INTEGER)")
        conn.executemany("INSERT INTO items VALUES (?, ?)",
                         [("kettle", 45), ("knife", 79), ("board", 19)])
    conn.close()
    return Tool("cheap_items", "Items.", {
        "type": "object", "properties": {"max_price": {"type": "integer"}},
        "required": ["max_price"]},
        executor={"sqlite": {"database": str(db), "params": {"max_price": "integer"},
                             "sql": "SELECT name FROM items WHERE price < :max_price "
                                    "ORDER BY price"}})
