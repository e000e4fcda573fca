"""A tiny Spider-format folder built inside the tests: one database, three tables."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

DB_ID = "concerts"

SINGERS = [
    (1, "Joe Sharp", "Netherlands", 52, 30.5),
    (2, "Timbaland", "United States", 32, 12.0),
    (3, "Justin Brown", "France", 29, 8.25),
    (4, "Rose White", "France", 41, 20.0),
    (5, "John Nizinik", "France", 43, 5.5),
    (6, "Tribal King", "United States", 25, 1.75),
]
STADIUMS = [(1, "Raith Rovers", 10104), (2, "Ayr United", 2000), (3, "Stark's Park", 4125),
            (4, "Glebe Park", 3960)]
CONCERTS = [(1, 1, 2014, 2), (2, 1, 2014, 3), (3, 2, 2015, 3), (4, 3, 2014, 5),
            (5, 1, 2015, 1)]

QUESTIONS = [
    # one subquery: 3 functions (direct, the subquery, the outer part)
    ("What are the names of the stadiums without any concerts?",
     "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)"),
    ("Which singers are older than the average singer age?",
     "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)"),
    ("How many singers are from France?",
     'SELECT count(*) FROM singer WHERE country = "France"'),
    ("What is the average net worth of singers older than 30?",
     "SELECT avg(net_worth) FROM singer WHERE age > 30"),
    ("Which singer names contain 'Ro'?",
     "SELECT name FROM singer WHERE name LIKE '%Ro%'"),
    ("Name the singers that gave a concert in 2014.",
     "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id "
     "WHERE T2.year = 2014"),
    # dropped: empty gold result
    ("Which singers come from Peru?", "SELECT name FROM singer WHERE country = 'Peru'"),
]


def build_tiny_spider(root: Path, questions: list[tuple[str, str]] | None = None) -> Path:
    db_dir = root / "database" / DB_ID
    db_dir.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db_dir / f"{DB_ID}.sqlite")
    conn.executescript("""
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT,
                             age INTEGER, net_worth REAL);
        CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT, capacity INTEGER);
        CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, stadium_id INTEGER,
                              year INTEGER, singer_id INTEGER);
    """)
    conn.executemany("INSERT INTO singer VALUES (?,?,?,?,?)", SINGERS)
    conn.executemany("INSERT INTO stadium VALUES (?,?,?)", STADIUMS)
    conn.executemany("INSERT INTO concert VALUES (?,?,?,?)", CONCERTS)
    conn.commit()
    conn.close()
    items = [{"db_id": DB_ID, "question": q, "query": sql}
             for q, sql in (questions if questions is not None else QUESTIONS)]
    (root / "dev.json").write_text(json.dumps(items, indent=1))
    return root
