import asyncio
import sqlite3

import pytest

from play2prompt.tools.executors._base import ExecContext, make_executor
from play2prompt.tools.loading import parse_tools
from play2prompt.tools.model import Invocation, Tool
from play2prompt.tools.runtime import ToolRuntime


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "dbs" / "shop.sqlite"
    path.parent.mkdir()
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE product (id INTEGER, name TEXT, price REAL, shop TEXT);
        INSERT INTO product VALUES (1, 'Teapot', 12.5, 'North'), (2, 'Kettle', 30.0, 'North'),
                                   (3, 'Teacup', 4.0, 'South'), (4, 'Toaster', 25.0, 'South');
    """)
    conn.commit()
    conn.close()
    return path


def sqlite_tool(name, sql, params=None, lists=None, columns=None, props=None):
    spec = {"database": "dbs/shop.sqlite", "sql": sql, "params": params or {}}
    if lists:
        spec["list_params"] = lists
    if columns:
        spec["columns"] = columns
    props = props or {}
    return Tool(name, "test", {"type": "object", "properties": props, "required": list(props)},
                {"sqlite": spec})


def run(tool, tmp_path, **args):
    ex = make_executor(tool, ExecContext(base_dir=tmp_path))
    return ex.execute(args)


def test_named_parameters_bind_and_return_records(db, tmp_path):
    tool = sqlite_tool("by_shop", "SELECT name, price FROM product WHERE shop = :shop "
                       "AND price > :min_price ORDER BY price", {"shop": "text",
                                                                 "min_price": "float"})
    obs = run(tool, tmp_path, shop="North", min_price=10.0)
    assert obs.ok, obs.error
    assert obs.output == [{"name": "Teapot", "price": 12.5}, {"name": "Kettle", "price": 30.0}]


def test_strict_types_give_informative_errors(db, tmp_path):
    tool = sqlite_tool("by_price", "SELECT name FROM product WHERE price > :x AND id > :n",
                       {"x": "float", "n": "integer"})
    obs = run(tool, tmp_path, x=10, n=1)
    assert not obs.ok and obs.error_type == "type"
    assert obs.error == "expected float, got int for x"
    obs = run(tool, tmp_path, x=10.0, n=1.5)
    assert obs.error == "expected int, got float for n"
    obs = run(tool, tmp_path, x=10.0, n=True)
    assert obs.error == "expected int, got bool for n"
    assert "missing argument(s) n" in run(tool, tmp_path, x=1.0).error
    assert "unknown argument(s) y" in run(tool, tmp_path, x=1.0, n=1, y=2).error


def test_empty_result_on_text_suggests_close_values(db, tmp_path):
    tool = sqlite_tool("by_name", "SELECT price FROM product WHERE name = :name",
                       {"name": "text"},
                       columns={"name": {"table": "product", "column": "name"}})
    obs = run(tool, tmp_path, name="teapot")
    assert not obs.ok and obs.error_type == "no_match"
    assert "did you mean 'Teapot'" in obs.error
    obs = run(tool, tmp_path, name="Tepot")
    assert "did you mean 'Teapot'" in obs.error
    assert run(tool, tmp_path, name="Teapot").output == [{"price": 12.5}]
    # a value that exists but matches nothing with the other conditions: an empty list
    both = sqlite_tool("by_name_shop", "SELECT id FROM product WHERE name = :name AND "
                       "shop = :shop", {"name": "text", "shop": "text"},
                       columns={"name": "product.name", "shop": "product.shop"})
    assert run(both, tmp_path, name="Teapot", shop="South").output == []


def test_list_argument_is_loaded_into_a_scratchpad_table(db, tmp_path):
    tool = sqlite_tool("names_of", "SELECT name FROM product WHERE id IN "
                       "(SELECT * FROM scratchpad) ORDER BY id", {},
                       lists={"ids": {"table": "scratchpad", "columns": ["id"]}})
    assert run(tool, tmp_path, ids=[1, 3]).output == [{"name": "Teapot"}, {"name": "Teacup"}]
    # records as returned by another sqlite tool work too, and a bare value is one item
    assert run(tool, tmp_path, ids=[{"id": 2}]).output == [{"name": "Kettle"}]
    assert run(tool, tmp_path, ids=4).output == [{"name": "Toaster"}]
    bad = run(tool, tmp_path, ids=[[1, 2]])
    assert not bad.ok and "expected 1 value(s) per item for ids" in bad.error


def count(db):
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT count(*) FROM product").fetchone()[0]
    finally:
        conn.close()


def gated(tool, tmp_path, allow=()):
    runtime = ToolRuntime([tool], ExecContext(base_dir=tmp_path, allow_side_effects=allow))
    try:
        return runtime.run_sync(Invocation(tool.name, {}))
    finally:
        runtime.close()


def test_writing_sql_runs_only_with_consent_or_rolled_back(db, tmp_path):
    reader = sqlite_tool("read", "WITH x AS (SELECT id FROM product) SELECT count(*) AS n FROM x")
    assert reader.side_effects is False and gated(reader, tmp_path).output == [{"n": 4}]
    tool = sqlite_tool("evil", "DELETE FROM product")
    assert tool.side_effects is True
    obs = gated(tool, tmp_path)
    assert obs.error_type == "consent" and "--allow-side-effects evil" in obs.error
    assert "SQL DELETE statement" in obs.error and count(db) == 4
    sandboxed = Tool(tool.name, "", tool.parameters, {**tool.executor, "sandbox": "rollback"})
    obs = gated(sandboxed, tmp_path)
    assert obs.ok and obs.output == {"rows_changed": 4} and count(db) == 4   # rolled back
    obs = gated(tool, tmp_path, allow=("evil",))
    assert obs.ok and obs.output == {"rows_changed": 4} and count(db) == 0   # committed


def test_sql_errors_are_observations(db, tmp_path):
    obs = run(sqlite_tool("bad", "SELECT nope FROM product"), tmp_path)
    assert not obs.ok and obs.error_type == "sql" and "no such column" in obs.error
    missing = Tool("m", "", {"type": "object", "properties": {}},
                   {"sqlite": {"database": "nope.sqlite", "sql": "SELECT 1"}})
    obs = run(missing, tmp_path)
    assert not obs.ok and obs.error_type == "unavailable"


def test_runtime_and_tools_json_round_trip(db, tmp_path):
    entry = sqlite_tool("by_shop", "SELECT name FROM product WHERE shop = :shop ORDER BY id",
                        {"shop": "text"}, props={"shop": {"type": "string"}}).to_dict()
    (tool,) = parse_tools({"tools": [entry]})
    rt = ToolRuntime([tool], ExecContext(base_dir=tmp_path))
    try:
        obs = asyncio.run(rt.run(Invocation("by_shop", {"shop": "South"})))
        assert obs.output == [{"name": "Teacup"}, {"name": "Toaster"}]
        rejected = asyncio.run(rt.run(Invocation("by_shop", {"shop": 3})))
        assert rejected.error_type == "schema"
    finally:
        rt.close()
