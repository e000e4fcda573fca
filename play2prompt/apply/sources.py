"""Which kind of source a file is, its editor, and the edit as a unified diff."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from play2prompt.apply.changes import DocChange, Edited, doc_changes
from play2prompt.apply.jsontext import TextEdits, parse
from play2prompt.errors import UserError
from play2prompt.results import RunResult

KINDS = ("python", "openapi-yaml", "openapi-json", "tools-json")
NO_DEMOS_JSON = "demos left out: a tools.json has no field for them (p2p export carries them)"


@dataclass(frozen=True)
class Edit:
    """One source file before and after."""

    path: Path
    kind: str
    before: str
    after: str
    written: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """The edit as a unified diff, paths relative to here (as ``git apply`` takes it)."""
        name = Path(os.path.relpath(self.path)).as_posix()
        lines = list(difflib.unified_diff(self.before.splitlines(True),
                                          self.after.splitlines(True),
                                          f"a/{name}", f"b/{name}"))
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of "
                       "file\n" for line in lines)

    def write(self) -> None:
        self.path.write_bytes(self.after.encode("utf-8"))


def source_kind(path: Path) -> str:
    """``python``, ``openapi-yaml``, ``openapi-json`` or ``tools-json``, by the file's name
    and, for JSON, whether it holds an ``openapi`` key."""
    suffix = path.suffix.lower()
    if suffix == ".py":
        return "python"
    if suffix in (".yaml", ".yml"):
        return "openapi-yaml"
    if suffix == ".json":
        text = read_text(path)
        root = parse(text, str(path))
        return "openapi-json" if isinstance(root.value, dict) and "openapi" in root.value \
            else "tools-json"
    raise UserError(f"{path}: not a source p2p apply edits (a .py module, an OpenAPI "
                    ".yaml/.yml/.json spec or a tools.json)")


def read_text(path: Path) -> str:
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text") from exc


def apply_run(result: RunResult, sources: Sequence[Path], select: Sequence[str] | None = None,
              force: bool = False) -> tuple[list[Edit], list[DocChange]]:
    """Each source with the run's changed docs written in, and the changes (``force``: also
    over a source's text that is not the one the run started from)."""
    changes = doc_changes(result, select, force)
    edits = []
    for path in sources:
        kind = source_kind(path)
        before = read_text(path)
        edited = _editor(kind)(before, changes, str(path))
        edits.append(Edit(path, kind, before, edited.text, edited.written, edited.notes))
    return edits, changes


def _editor(kind: str) -> Callable[[str, Sequence[DocChange], str], Edited]:
    if kind == "python":
        from play2prompt.apply.pysource import edit_python

        return edit_python
    if kind.startswith("openapi"):
        from play2prompt.apply.openapi_doc import edit_openapi_json, edit_openapi_yaml

        return edit_openapi_yaml if kind == "openapi-yaml" else edit_openapi_json
    return edit_tools_json


def edit_tools_json(text: str, changes: Sequence[DocChange], source: str) -> Edited:
    """A tools.json (or bare list of function specs) with the new texts in place."""
    root = parse(text, source)
    entries = root.get("tools") if isinstance(root.value, dict) else root
    edits, written, notes = TextEdits(text), [], []
    by_name = {c.tool: c for c in changes}
    for entry in entries.items if entries is not None else []:
        fn = entry.get("function") or entry
        name = fn.value.get("name") if isinstance(fn.value, dict) else None
        change = by_name.get(name) if isinstance(name, str) else None
        if change is None:
            continue
        props = fn.get("parameters", "properties")
        places = {p: node for p, node in (props.keys.items() if props is not None else ())
                  if isinstance(node.value, dict)}
        change, said = change.against(_text(fn.value.get("description")),
                                      {p: _text(n.value.get("description"))
                                       for p, n in places.items()})
        notes += said
        if change.empty:
            continue
        if change.description is not None:
            edits.set_value(fn, "description", change.description)
        for pname, doc in change.params.items():
            if pname in places:
                edits.set_value(places[pname], "description", doc)
        written.append(change.tool)
    if any(by_name[n].demos for n in written):
        notes.append(NO_DEMOS_JSON)
    return Edited(edits.result(), tuple(written), tuple(notes))


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
