"""Small packs the tests share."""

from __future__ import annotations

#: The smallest pack with no diagnostic at all.
MINIMAL_PACK = """\
id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  support: {id: support, name: Support, version: 1.0.0, system_template: Hi}
"""
