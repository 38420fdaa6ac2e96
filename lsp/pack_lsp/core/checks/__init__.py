"""Layer 4, checks: the rules, their registry, and ``analyze()``.

``analysis`` is the one entry point of the CLI and the server; ``incremental`` redoes
only what an edit touched; ``rules/`` holds one module per rule family; ``arena/`` and
``manifest/`` check those document kinds; ``suppress`` applies the configuration and
the suppression comments.
"""
