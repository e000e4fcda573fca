"""Write a small Spider-format folder (one database, three tables, 16 questions with gold SQL).

    python examples/spider_demo/make_demo.py /tmp/spider-demo
    p2p data spider --spider-dir /tmp/spider-demo -o /tmp/spider-demo-out
    p2p eval spider --data /tmp/spider-demo-out --task-model embedded --limit 4

The data is made up for this demo (it is not Spider's); the layout is Spider's:
``database/<db_id>/<db_id>.sqlite`` and ``dev.json`` with ``db_id``, ``question``, ``query``.
Half of the questions have a subquery or a set operation, so they have a backup plan.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

DB_ID = "concert_hall"

SINGERS = [  # singer_id, name, country, age, net_worth_millions
    (1, "Joe Sharp", "Netherlands", 52, 30.5), (2, "Timbaland", "United States", 32, 12.0),
    (3, "Justin Brown", "France", 29, 8.25), (4, "Rose White", "France", 41, 20.0),
    (5, "John Nizinik", "France", 43, 5.5), (6, "Tribal King", "United States", 25, 1.75),
    (7, "Ana Lima", "Brazil", 36, 9.0), (8, "Kenji Mori", "Japan", 27, 3.5),
]
STADIUMS = [  # stadium_id, name, city, capacity
    (1, "Raith Rovers", "Kirkcaldy", 10104), (2, "Ayr United", "Ayr", 2000),
    (3, "Stark's Park", "Kirkcaldy", 4125), (4, "Glebe Park", "Brechin", 3960),
    (5, "Balmoor", "Peterhead", 4000),
]
CONCERTS = [  # concert_id, concert_name, stadium_id, year, singer_id
    (1, "Auditions", 1, 2014, 2), (2, "Super bootcamp", 1, 2014, 3), (3, "Home Visits", 2, 2015, 3),
    (4, "Week 1", 3, 2014, 5), (5, "Week 2", 1, 2015, 1), (6, "Final", 5, 2015, 7),
    (7, "Encore", 5, 2016, 6), (8, "Late Show", 3, 2016, 2),
]
QUESTIONS = [
    ("How many singers are there?", "SELECT count(*) FROM singer"),
    ("What is the average age of the singers from France?",
     'SELECT avg(age) FROM singer WHERE country = "France"'),
    ("What are the names of the stadiums without any concerts?",
     "SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)"),
    ("List the names of the singers older than the average age of all singers.",
     "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)"),
    ("Which singers performed in a concert in 2014?",
     "SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert "
     "WHERE year = 2014)"),
    ("What is the name of the stadium with the largest capacity?",
     "SELECT name FROM stadium ORDER BY capacity DESC LIMIT 1"),
    ("Which countries have both a singer older than 40 and a singer younger than 30?",
     "SELECT country FROM singer WHERE age > 40 INTERSECT SELECT country FROM singer "
     "WHERE age < 30"),
    ("Which singers from France never performed in a concert?",
     'SELECT name FROM singer WHERE country = "France" EXCEPT SELECT T1.name FROM singer '
     "AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id"),
    ("Which stadiums have a capacity above the average capacity?",
     "SELECT name FROM stadium WHERE capacity > (SELECT avg(capacity) FROM stadium)"),
    ("How many concerts took place in 2015?", "SELECT count(*) FROM concert WHERE year = 2015"),
    ("What are the names of the stadiums that hosted a concert in 2016?",
     "SELECT name FROM stadium WHERE stadium_id IN (SELECT stadium_id FROM concert "
     "WHERE year = 2016)"),
    ("How many singers come from each country?",
     "SELECT country, count(*) FROM singer GROUP BY country"),
    ("What is the name of the youngest singer?",
     "SELECT name FROM singer WHERE age = (SELECT min(age) FROM singer)"),
    ("How many stadiums have never hosted a concert?",
     "SELECT count(*) FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)"),
    ("Which singers have 'Ro' in their name?", "SELECT name FROM singer WHERE name LIKE '%Ro%'"),
    ("Which singers performed at Raith Rovers?",
     "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id "
     'JOIN stadium AS T3 ON T2.stadium_id = T3.stadium_id WHERE T3.name = "Raith Rovers"'),
]


def make_demo(root: Path) -> Path:
    db_dir = root / "database" / DB_ID
    db_dir.mkdir(parents=True, exist_ok=True)
    path = db_dir / f"{DB_ID}.sqlite"
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT,
                             age INTEGER, net_worth_millions REAL);
        CREATE TABLE stadium (stadium_id INTEGER PRIMARY KEY, name TEXT, city TEXT,
                              capacity INTEGER);
        CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT,
                              stadium_id INTEGER REFERENCES stadium(stadium_id), year INTEGER,
                              singer_id INTEGER REFERENCES singer(singer_id));
    """)
    conn.executemany("INSERT INTO singer VALUES (?,?,?,?,?)", SINGERS)
    conn.executemany("INSERT INTO stadium VALUES (?,?,?,?)", STADIUMS)
    conn.executemany("INSERT INTO concert VALUES (?,?,?,?,?)", CONCERTS)
    conn.commit()
    conn.close()
    items = [{"db_id": DB_ID, "question": q, "query": sql} for q, sql in QUESTIONS]
    (root / "dev.json").write_text(json.dumps(items, indent=1) + "\n")
    (root / "train_spider.json").write_text("[]\n")
    return root


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/spider-demo")
    make_demo(target)
    print(f"wrote {target} ({len(QUESTIONS)} questions, database {DB_ID})")
