"""Layer 1, base: what every other layer builds on and that knows nothing of YAML.

Spans and line indexes (``text``), reading bytes as text (``source``), the diagnostic
and rule types (``diagnostics``), typed fix payloads (``fixes``), document kinds and
file names (``kinds``), the PromptPack versions (``versions``), and the declarations of
the problems the lower layers raise (``problems/``: YAML, schema, suppression comments,
PromptKit document kinds), so that a parser can report a problem without importing the
checks.
"""
