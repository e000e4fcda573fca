"""Two sides of two evaluations (or of one) against each other, query by query: accuracy of
each, wins and losses of the second against the first, McNemar's exact p, how many answers
are alike (the same calls) and the tokens each side generated, and per category.

Usage: python bench/compare_evals.py EVAL_A SIDE_A EVAL_B SIDE_B

EVAL is an evaluation's folder (its ``run.db``) or a sweep's ``eval.db``; SIDE is a side name
(``full``, ``baseline``, ``oracle``) or a whole eval id (``tools@c10c738541:full``) where a
sweep holds several sides of that name. Both must have answered the same queries (the same
query file, the same task model): only the queries both answered are compared.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path

from play2prompt.evaluation.compare import mcnemar_exact


def side_records(path: str, side: str) -> dict[str, dict]:
    db = Path(path)
    db = db / "run.db" if db.is_dir() else db
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        ids = [r[0] for r in conn.execute("SELECT DISTINCT eval_id FROM eval_items")]
        chosen = [i for i in ids if i == side or i.rsplit(":", 1)[-1] == side]
        if len(chosen) != 1:
            raise SystemExit(f"{path}: side {side!r} matches {chosen or 'nothing'} of {ids}")
        rows = conn.execute("SELECT item_id, record FROM eval_items WHERE eval_id = ?",
                            (chosen[0],)).fetchall()
    return {item: json.loads(record) for item, record in rows}


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    a, b = side_records(argv[0], argv[1]), side_records(argv[2], argv[3])
    common = sorted(set(a) & set(b))
    right_a = {i for i in common if a[i]["correct"]}
    right_b = {i for i in common if b[i]["correct"]}
    wins, losses = right_b - right_a, right_a - right_b
    n = len(common)
    print(f"{n} queries: A {100 * len(right_a) / n:.1f} %, B {100 * len(right_b) / n:.1f} %; "
          f"B against A +{len(wins)} / -{len(losses)}, McNemar p = "
          f"{mcnemar_exact(len(wins), len(losses)):.3g}")
    alike = sum(a[i].get("parsed") == b[i].get("parsed") for i in common)
    tokens = [sum(side[i].get("usage", {}).get("completion_tokens", 0) for i in common)
              for side in (a, b)]
    print(f"answers alike (the same calls parsed): {alike} of {n}; generated tokens A "
          f"{tokens[0]:,}, B {tokens[1]:,}")
    cats = Counter(a[i].get("category", "?") for i in common)
    print("| category | n | A right | B right |")
    print("|---|---:|---:|---:|")
    for cat in sorted(cats):
        ids = [i for i in common if a[i].get("category", "?") == cat]
        print(f"| {cat} | {len(ids)} | {sum(i in right_a for i in ids)} | "
              f"{sum(i in right_b for i in ids)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
