import pytest

from play2prompt.adapters.spider.build import draft_executor, rows_key
from play2prompt.adapters.spider.decompose import SqlError, decompose, parse_sql
from play2prompt.adapters.spider.schema import read_schema, run_query
from tests.adapters.spider_fixture import DB_ID, build_tiny_spider


@pytest.fixture(scope="module")
def schema(tmp_path_factory):
    root = build_tiny_spider(tmp_path_factory.mktemp("spider"))
    return read_schema(root / "database" / DB_ID / f"{DB_ID}.sqlite", DB_ID)


def run(draft, schema, args):
    obs = draft_executor(draft, schema).execute(args)
    assert obs.ok, obs.error
    return obs.output


def gold(schema, sql):
    cols, rows = run_query(schema.path, sql)
    return [dict(zip(cols, r)) for r in rows]


def test_one_subquery_gives_three_functions_and_the_composition_equals_the_direct_call(schema):
    sql = ("SELECT name FROM stadium WHERE capacity > 3000 AND stadium_id NOT IN "
           "(SELECT stadium_id FROM concert WHERE year = 2014)")
    dec = decompose(parse_sql(sql, schema), schema)
    assert len(dec.plans) == 1
    (sub, outer) = dec.plans[0]
    functions = {dec.direct.key, sub.function.key, outer.function.key}
    assert len(functions) == 3
    # the direct function takes every literal; the parts split them, plus the list argument
    assert [p.name for p in dec.direct.params] == ["capacity", "year"]
    assert [p.name for p in sub.function.params] == ["year"]
    assert [p.name for p in outer.function.params] == ["capacity"]
    assert [lp.name for lp in outer.function.lists] == ["excluded_stadium_id_values"]
    assert "scratchpad" in outer.function.sql and "concert" not in outer.function.sql
    assert outer.inputs == {"excluded_stadium_id_values": 0}
    direct = run(dec.direct, schema, dec.direct.gold_args())
    part = run(sub.function, schema, sub.function.gold_args())
    composed = run(outer.function, schema, {**outer.function.gold_args(),
                                            "excluded_stadium_id_values": part})
    assert rows_key(direct) == rows_key(composed) == rows_key(gold(schema, sql))
    assert direct == [{"name": "Glebe Park"}]
    # other values flow through both paths alike
    direct2 = run(dec.direct, schema, {"capacity": 1000, "year": 2015})
    part2 = run(sub.function, schema, {"year": 2015})
    composed2 = run(outer.function, schema, {"capacity": 1000, "excluded_stadium_id_values": part2})
    assert rows_key(direct2) == rows_key(composed2) and len(direct2) == 2


def test_literals_become_typed_parameters(schema):
    sql = ('SELECT name FROM singer WHERE country = "France" AND age BETWEEN 30 AND 45 '
           "AND net_worth > 5 AND name LIKE '%Ro%' ORDER BY age DESC LIMIT 2")
    dec = decompose(parse_sql(sql, schema), schema)
    params = {p.name: (p.kind, p.value, p.target) for p in dec.direct.params}
    assert params == {
        "country": ("text", "France", "singer.country"),   # Spider's double-quoted string
        "min_age": ("integer", 30, "singer.age"),
        "max_age": ("integer", 45, "singer.age"),
        "net_worth": ("float", 5.0, "singer.net_worth"),   # REAL column: a float parameter
        "name": ("text", "Ro", "singer.name"),             # LIKE pattern without wildcards
        "limit": ("integer", 2, "the number of rows"),
    }
    assert ":country" in dec.direct.sql and "'%' || :name || '%'" in dec.direct.sql
    assert dec.plans == ()
    out = run(dec.direct, schema, dec.direct.gold_args())
    assert rows_key(out) == rows_key(gold(schema, sql))
    kind = {p.name: p.kind for p in decompose(parse_sql(
        "SELECT name FROM singer WHERE age > '30'", schema), schema).direct.params}
    assert kind == {"age": "integer"}  # a quoted number against an INTEGER column


def test_scalar_subquery_set_operation_and_nesting(schema):
    scalar = decompose(parse_sql("SELECT name FROM singer WHERE age > "
                                 "(SELECT avg(age) FROM singer)", schema), schema)
    (sub, outer), = scalar.plans
    avg = run(sub.function, schema, {})
    names = run(outer.function, schema, {outer.function.lists[0].name: avg})
    assert rows_key(names) == rows_key(run(scalar.direct, schema, {}))
    setop = decompose(parse_sql(
        "SELECT name FROM singer WHERE country = 'France' INTERSECT SELECT T1.name FROM "
        "singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year = 2014",
        schema), schema)
    assert len(setop.plans) == 1 and "INTERSECT SELECT * FROM scratchpad" in \
        setop.plans[0][-1].function.sql
    nested = decompose(parse_sql(
        "SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert WHERE "
        "stadium_id IN (SELECT stadium_id FROM stadium WHERE capacity > 3000))", schema),
        schema)
    assert [len(p) for p in nested.plans] == [2, 3]
    assert nested.plans[1][2].inputs == {"singer_id_values": 1}


def test_correlated_subquery_stays_inline_and_bad_sql_is_rejected(schema):
    dec = decompose(parse_sql("SELECT name FROM singer AS S WHERE age = (SELECT max(age) "
                              "FROM singer AS S2 WHERE S2.country = S.country)", schema),
                    schema)
    assert dec.plans == ()
    with pytest.raises(SqlError):
        parse_sql("SELECT FROM WHERE (", schema)
