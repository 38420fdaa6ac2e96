"""Layer 2, syntax: YAML and JSON text to nodes with exact spans, and scalar readings.

Nothing here knows what a PromptPack is: ``yamltree/`` composes libyaml's events into
nodes, ``jsontree`` reads strict JSON, ``scalars`` reads block and flow scalars back to
their source characters, ``reuse`` compares results recomputed in verify mode.
"""
