"""The documentation's shape: a README a newcomer reads in five minutes, links that resolve.

README.md stays under 200 lines with the main job (optimize, export, serve) in its first 60;
every relative link of README.md and docs/*.md points at a file that exists, and a link to a
Markdown file's ``#anchor`` at one of its headings (GitHub's anchors).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))

MAX_LINES = 200
FIRST_SCREEN = 60
MAIN_JOB = ("p2p optimize ", "p2p export ", "p2p serve ")

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)   # http:, https:, mailto:, ...


def _prose(text: str) -> str:
    """The text without code blocks and code spans (their brackets are not links)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def relative_links(text: str) -> list[str]:
    prose = _prose(text)
    found = _LINK.findall(prose) + _REF_DEF.findall(prose)
    return [t for t in found if not _EXTERNAL.match(t)]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())   # a link's text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = anchor(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken_links(path: Path) -> list[str]:
    problems = []
    for target in relative_links(path.read_text(encoding="utf-8")):
        file_part, _, fragment = target.partition("#")
        dest = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not dest.exists():
            shown = dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest
            problems.append(f"{target}: no file {shown}")
        elif fragment and dest.suffix == ".md" and unquote(fragment).lower() not in anchors(dest):
            problems.append(f"{target}: no heading #{fragment} in {dest.name}")
    return problems


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES}): " \
                                    "move detail into docs/"


def test_readme_shows_optimize_export_serve_on_its_first_screen():
    head = "\n".join(README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN])
    missing = [cmd.strip() for cmd in MAIN_JOB if cmd not in head]
    assert not missing, f"not in README.md's first {FIRST_SCREEN} lines: {', '.join(missing)}"


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    assert not broken_links(path), f"{path.relative_to(ROOT)}: {broken_links(path)}"


def test_the_link_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# A heading `here`\n")
    page.write_text("[ok](there.md#a-heading-here) [web](https://example.com) `[code](nope.md)`\n"
                    "[gone](missing.md) [bad](there.md#nowhere)\n"
                    "```\n[fenced](also-missing.md)\n```\n")
    problems = broken_links(page)
    assert len(problems) == 2 and "missing.md" in problems[0] and "#nowhere" in problems[1]
