"""Render a run's report and look at its first screen in headless Chromium.

    python bench/report_screenshot.py runs/q15-facts2
    python bench/report_screenshot.py runs/q15-facts2 --eval runs/eval-q15-facts2 --out /tmp/shot

Writes ``<out>/report/report.html`` (``p2p report``), takes a screenshot of the first screen at
1400 x 900 (``<out>/first-screen.png``) and checks it:

- the headline (``Helped: 3 of 7 docs changed; accuracy ...``) is in the DOM Chromium built, in
  the ``#headline`` element, and that element ends within the first screen;
- the per-tool table starts within the first screen;
- nothing is wider than the window (no horizontal scroll at 1,400 px);
- the PNG is the window's size and not blank (enough non-white pixels and colours).

The measurements come from a copy of the report with a small script that writes them into the
DOM (``data-*`` attributes on ``<html>``), dumped with ``--dump-dom``; the report itself has no
script. Prints a JSON summary; exit status 1 when a check fails. Needs ``/usr/bin/chromium``
(``apt-get install chromium``); the test suite skips its screenshot test without it.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from play2prompt.report import build_report

CHROMIUM = Path("/usr/bin/chromium")
WIDTH, HEIGHT = 1400, 900
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
PROBE = """<script>
(function () {
  var d = document.documentElement, h = document.getElementById("headline"),
      t = document.getElementById("tools-summary");
  d.setAttribute("data-scroll-width", d.scrollWidth);
  d.setAttribute("data-view-width", window.innerWidth);
  d.setAttribute("data-headline-bottom", h ? Math.ceil(h.getBoundingClientRect().bottom) : -1);
  d.setAttribute("data-table-top", t ? Math.ceil(t.getBoundingClientRect().top) : -1);
})();
</script>"""


def chromium(args: list[str], profile: Path, timeout: float = 90.0) -> str:
    cmd = [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}",
           f"--window-size={WIDTH},{HEIGHT}", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"chromium failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stdout


class HeadlineText(HTMLParser):
    """The text of the element with id ``headline`` and the ``data-*`` of ``<html>``."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.text: list[str] = []
        self.data: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "html":
            self.data = {k[5:]: v or "" for k, v in found.items() if k.startswith("data-")}
        if self.depth:
            self.depth += 1
        elif found.get("id") == "headline":
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)


def blank_stats(png: Path) -> dict[str, Any]:
    from PIL import Image

    with Image.open(png) as img:
        rgb = img.convert("RGB")
        size = rgb.size
        small = rgb.resize((size[0] // 4, size[1] // 4))
        pixels = [small.getpixel((x, y)) for y in range(small.height)
                  for x in range(small.width)]
    ink = sum(1 for p in pixels if min(p) < 235) / max(1, len(pixels))
    return {"size": list(size), "ink": round(ink, 4), "colours": len(set(pixels))}


def checks(headline: str, verdict: str | None, dom: str, png: Path) -> dict[str, Any]:
    """Each check's outcome (True when it holds) and what was measured."""
    parser = HeadlineText()
    parser.feed(dom)
    shown = re.sub(r"\s+", " ", "".join(parser.text)).strip()
    data = {k: int(v) for k, v in parser.data.items() if v.lstrip("-").isdigit()}
    image = blank_stats(png)
    return {
        "headline": shown,
        "measured": {**data, **image},
        "ok": {
            "headline in the DOM": headline in dom_text(dom)
                and shown == " ".join(filter(None, [verdict, headline])),
            "headline within the first screen": 0 < data.get("headline-bottom", -1) <= HEIGHT,
            "tool table starts within the first screen":
                0 < data.get("table-top", -1) < HEIGHT,
            "no horizontal overflow": data.get("scroll-width", 1 << 30)
                <= data.get("view-width", WIDTH),
            "screenshot has the window's size": image["size"] == [WIDTH, HEIGHT],
            "screenshot is not blank": image["ink"] > 0.02 and image["colours"] > 16,
        },
    }


def dom_text(dom: str) -> str:
    """The DOM's text, tags removed and entities decoded, spaces collapsed."""
    import html

    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", dom)))


def screenshot(run: str | Path, out: Path, runs_dir: Path | None = None,
               eval_dirs: list[Path] | None = None) -> dict[str, Any]:
    """Render the report into ``out/report``, screenshot and check it (see the docstring)."""
    files = build_report(run, runs_dir, out / "report", eval_dirs or ())
    page = files.html.read_text(encoding="utf-8")
    probe = out / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    png = out / "first-screen.png"
    with tempfile.TemporaryDirectory(prefix="p2p-chromium-") as profile:
        chromium([f"--screenshot={png}", files.html.resolve().as_uri()], Path(profile))
        dom = chromium(["--dump-dom", probe.resolve().as_uri()], Path(profile))
    (out / "dom.html").write_text(dom, encoding="utf-8")
    result = checks(files.headline, files.verdict, dom, png)
    return {"report": str(files.html), "screenshot": str(png), "expected": files.sentence,
            **result, "passed": all(result["ok"].values())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="runs/<id> or a run id")
    ap.add_argument("--runs-dir", type=Path, default=None)
    ap.add_argument("--eval", type=Path, action="append", default=[],
                    help="an evaluation folder of the run's prompts (repeatable)")
    ap.add_argument("--out", type=Path, default=None,
                    help="output folder (default: a new temporary folder)")
    args = ap.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="p2p-report-shot-"))
    out.mkdir(parents=True, exist_ok=True)
    summary = screenshot(args.run, out, args.runs_dir, args.eval)
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 0 if summary["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
