"""The pack the workspace tests write many of: one prompt calling one tool, which
`tools` declares (`lookup`) or not (any other name: an undefined tool, PP301)."""

from __future__ import annotations

PACK = """\
id: {name}
name: {name}
version: 1.0.0
template_engine: {{version: v1, syntax: "{{{{variable}}}}"}}
prompts:
  support:
    id: support
    name: Support
    version: 1.0.0
    system_template: Help
    tools: [{tool}]
tools:
  lookup:
    name: lookup
    description: Look something up
"""


def workspace_pack(name: str, tool: str = "lookup") -> str:
    """The text of a pack ``name`` whose prompt calls ``tool``."""
    return PACK.format(name=name, tool=tool)
