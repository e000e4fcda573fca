"""``p2p apply RUN --to SOURCE``: a run's optimized docs written back where they live.

Only the tools whose doc the run changed are touched (a kept original never is), and of those
only the texts that differ from the original: the description, each parameter's description.
Each kind of source is edited in place, so everything else stays byte for byte as it was:
tools.json and OpenAPI JSON through the spans of their strings (:mod:`.jsontext`), OpenAPI YAML
through a round-trip parser (:mod:`.openapi_doc`: comments and key order kept), Python
docstrings and MCP tool decorators through a concrete syntax tree (:mod:`.pysource`).
"""

from play2prompt.apply.changes import DocChange, doc_changes
from play2prompt.apply.sources import Edit, apply_run, source_kind

__all__ = ["DocChange", "Edit", "apply_run", "doc_changes", "source_kind"]
