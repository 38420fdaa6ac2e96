"""Limits that bound the work a hostile or broken text can cause: the depth of
nesting, the expansion of aliases, and the flow-depth pre-scan that runs before
libyaml sees the text."""

from __future__ import annotations

import re

#: Total number of nodes that aliases may add to the document when expanded.
ALIAS_EXPANSION_BUDGET = 100_000
#: Deepest nesting of collections that is read; deeper content is cut off.
MAX_DEPTH = 64


#: Flow collections (``[``/``{``) nested deeper than this are refused before libyaml
#: sees the text: its scanner spends time proportional to the nesting depth on every
#: token, so 100,000 ``[`` take tens of seconds before the first event arrives.
MAX_FLOW_DEPTH = 1000

_FLOW_TOKEN = re.compile(r"[\[\]{}\"'#]")
#: A token that starts a value outside flow collections: after an indicator or a line
#: break and at most 79 spaces or tabs (the scan's look-behind window is 80
#: characters: indicator included). The match starts at that indicator or break.
#: The blanks are matched possessively (``{0,79}+``): a token is never a blank, so
#: giving some back could not help, and the regular expression engine would try.
_VALUE_TOKEN = re.compile(r"[:\-?,\r\n][ \t]{0,79}+[\[\]{}\"'#]")
#: The same at the start of the text, where up to 80 spaces or tabs may come first.
_FIRST_TOKEN = re.compile(r"[ \t]{0,80}+[\[\]{}\"'#]")
_DOUBLE_QUOTED_END = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)


def too_deep(text: str) -> int | None:
    """Offset where flow collections first nest deeper than ``MAX_FLOW_DEPTH``.

    A cheap approximation of YAML's flow context, in linear time: outside flow
    collections a bracket or quote counts only where a value starts; inside them
    every bracket counts, quoted scalars and comments are skipped. It can only
    under-count (then libyaml and the composer's own limit still apply).

    Outside flow collections, most brackets and quotes are inside plain or block
    scalars (the ``{{ }}`` of templates, apostrophes in prose): ``_VALUE_TOKEN``
    finds only those that start a value, in one regular-expression search, without
    visiting the others. The character before ``pos`` is never a space, a tab or an
    indicator (it is a token or a closing quote, or ``pos`` is at a line break), so
    the indicator or break a token follows is never before ``pos``.
    """
    if text.count("[") + text.count("{") <= MAX_FLOW_DEPTH:
        return None
    depth = 0
    pos = 0
    search = _FLOW_TOKEN.search
    value_token = _VALUE_TOKEN.search
    first = _FIRST_TOKEN.match(text)
    while True:
        if depth:
            m = search(text, pos)
            if m is None:
                return None
            i = m.start()
        elif first is not None:
            i = first.end() - 1
            first = None
        else:
            m = value_token(text, pos)
            if m is None:
                return None
            i = m.end() - 1
        c = text[i]
        pos = i + 1
        if c in "[{":
            depth += 1
            if depth > MAX_FLOW_DEPTH:
                return i
        elif c in "]}":
            depth = max(depth - 1, 0)
        elif c == '"':
            end = _DOUBLE_QUOTED_END.match(text, pos)
            pos = end.end() if end is not None else len(text)
        elif c == "'":
            end_q = text.find("'", pos)
            pos = end_q + 1 if end_q >= 0 else len(text)
        elif i == 0 or text[i - 1] in " \t\r\n":  # a comment
            end_n = text.find("\n", pos)
            pos = end_n if end_n >= 0 else len(text)
