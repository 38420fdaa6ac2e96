"""The rendered prompt: what a prompt's system template sends once its fragments are
expanded and its variables filled.

``render(analysis, key, values)`` expands every fragment placeholder (recursively,
remembering the include path, and refusing a fragment that includes itself) and fills
each bare variable placeholder from ``values`` (``--var`` on the command line, the
command's arguments in an editor), then the variable's ``default``, then its
``example``. A placeholder left unfilled stays as written and is listed in
``unfilled``; artifact placeholders are filled by the runtime and stay as written
too, as do block helpers and expressions. Placeholders are those the analysis found,
so every dialect pack-lsp knows (``{{fragments.x}}``, ``{{fragment:x}}``, a bare
fragment name) and every ``template_engine.syntax`` (``${name}``) render alike.

The token count is an estimate made offline by ``estimate_tokens`` (no tokenizer,
no data, no dependency): a word is one token per four characters (rounded, at least
one), a punctuation mark or symbol one token, a line break one. It is a rough size
for comparing prompts, not a provider's exact count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.model.expansion import MAX_RENDER_SIZE_ENV, Expander, render_budget
from pack_lsp.core.model.templates import Placeholder, TemplateInfo

ESTIMATOR = "pack-lsp offline heuristic: a word is a token per 4 characters, a symbol 1"

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SYMBOL = re.compile(r"[^\w\s]|_", re.UNICODE)


def estimate_tokens(text: str) -> int:
    """An offline estimate of the tokens a model reads for ``text`` (see the module
    docstring)."""
    words = sum(max(1, (len(m.group()) + 2) // 4) for m in _WORD.finditer(text))
    symbols = len(_SYMBOL.findall(text))
    return words + symbols + text.count("\n")


@dataclass(frozen=True, slots=True)
class Filled:
    """A variable placeholder and where its value came from."""

    name: str
    source: str  # "value" (given), "default", "example"
    value: str


@dataclass(frozen=True, slots=True)
class Rendered:
    prompt: str
    text: str
    #: Each fragment expanded, as its include path (``prompt > a > b``).
    includes: tuple[str, ...] = ()
    filled: tuple[Filled, ...] = ()
    unfilled: tuple[str, ...] = ()
    #: Placeholders left for the runtime (artifacts, blocks, expressions).
    runtime: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    characters: int = 0
    tokens: int = 0
    estimator: str = ESTIMATOR

    def to_json(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "text": self.text,
            "includes": list(self.includes),
            "filled": [{"name": f.name, "source": f.source, "value": f.value} for f in self.filled],
            "unfilled": list(self.unfilled),
            "runtime": list(self.runtime),
            "problems": list(self.problems),
            "characters": self.characters,
            "tokens": self.tokens,
            "estimator": self.estimator,
        }

    def document(self) -> str:
        """A plain-text view: a header of facts, then the text as the model gets it."""
        head = [
            f"# Prompt `{self.prompt}` rendered by pack-lsp",
            f"# {self.characters} characters, about {self.tokens} tokens",
            f"# estimator: {self.estimator}",
        ]
        for path in self.includes:
            head.append(f"# fragment: {path}")
        for f in self.filled:
            head.append(f"# {f.name} = {f.value!r} ({f.source})")
        if self.unfilled:
            head.append(f"# unfilled (left as written): {', '.join(self.unfilled)}")
        if self.runtime:
            head.append(f"# filled at run time: {', '.join(self.runtime)}")
        for problem in self.problems:
            head.append(f"# problem: {problem}")
        return "\n".join(head) + "\n\n" + self.text + ("" if self.text.endswith("\n") else "\n")


class RenderError(ValueError):
    """The prompt cannot be rendered (unknown key, no system template)."""


def as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, int | float):
        return str(value)
    import json

    return json.dumps(value, ensure_ascii=False)


def variable_values(analysis: Analysis, prompt_key: str) -> dict[str, tuple[str, Any]]:
    """The declared variables of a prompt that have a ``default`` or an ``example``:
    name → (``"default"`` or ``"example"``, value); a default wins."""
    data = analysis.data
    out: dict[str, tuple[str, Any]] = {}
    prompts = data.get("prompts") if isinstance(data, dict) else None
    prompt = prompts.get(prompt_key) if isinstance(prompts, dict) else None
    variables = prompt.get("variables") if isinstance(prompt, dict) else None
    if not isinstance(variables, list):
        return out
    for var in variables:
        if not isinstance(var, dict) or not isinstance(var.get("name"), str):
            continue
        for source in ("default", "example"):
            if source in var:
                out.setdefault(var["name"], (source, var[source]))
    return out


@dataclass
class _State:
    values: dict[str, str]
    declared: dict[str, tuple[str, Any]]
    infos: dict[str, list[TemplateInfo]]
    includes: list[str] = field(default_factory=list)
    filled: dict[str, Filled] = field(default_factory=dict)
    unfilled: list[str] = field(default_factory=list)
    runtime: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    budget: int = 0
    """The largest text allowed (0: any); ``written`` counts what was produced."""
    written: int = 0


def _expand(info: TemplateInfo, path: tuple[str, ...], state: _State) -> str:
    text = info.template.text
    out: list[str] = []
    at = 0
    for p in sorted(info.placeholders, key=lambda p: p.start):
        if p.start < at:
            continue
        out.append(_counted(text[at : p.start], state))
        filled = _fill(p, text[p.start : p.end], path, state)
        out.append(filled if p.kind == "fragment" else _counted(filled, state))
        at = p.end
    out.append(_counted(text[at:], state))
    return "".join(out)


def _counted(piece: str, state: _State) -> str:
    """``piece``, counted against the budget: the text never grows past it, whatever
    the measure before expanding said (variables' values are not in that measure)."""
    state.written += len(piece)
    if state.budget and state.written > state.budget:
        raise RenderError(
            f"the rendered text passes the budget of {state.budget:,} characters "
            f"({MAX_RENDER_SIZE_ENV} raises it)"
        )
    return piece


def _fill(p: Placeholder, written: str, path: tuple[str, ...], state: _State) -> str:
    if p.kind == "fragment":
        if p.name in path:
            state.problems.append(
                f"fragment `{p.name}` includes itself ({' > '.join((*path, p.name))}); "
                "left as written"
            )
            return written
        found = state.infos.get(p.name)
        if not found:
            state.problems.append(f"fragment `{p.name}` is not defined; left as written")
            return written
        state.includes.append(" > ".join((*path, p.name)))
        return _expand(found[0], (*path, p.name), state)
    if p.kind == "variable" and p.syntax == "bare" and not p.scoped:
        if p.name in state.values:
            value, source = state.values[p.name], "value"
        elif p.name in state.declared:
            source, raw = state.declared[p.name]
            value = as_text(raw)
        else:
            if p.name not in state.unfilled:
                state.unfilled.append(p.name)
            return written
        state.filled.setdefault(p.name, Filled(p.name, source, value))
        return value
    if p.kind == "variable" and p.syntax == "bare":
        if p.name not in state.unfilled:
            state.unfilled.append(p.name)
        return written
    if written not in state.runtime:
        state.runtime.append(written)
    return written


def render(analysis: Analysis, prompt_key: str, values: dict[str, str] | None = None) -> Rendered:
    """The rendered system template of ``prompt_key`` (see the module docstring).

    Raises ``RenderError`` when the document has no such prompt or the prompt no
    system template.
    """
    pack = analysis.pack
    if pack is None:
        raise RenderError("the document is not a PromptPack")
    prompt = pack.prompts.get(prompt_key)
    if prompt is None:
        known = ", ".join(pack.prompts) or "none"
        raise RenderError(f"`{prompt_key}` is not a prompt of this pack (prompts: {known})")
    templates = analysis.derived.templates
    if templates is None:
        raise RenderError("the document is not a PromptPack")
    own = [
        t
        for t in templates.of_prompt(prompt_key)
        if prompt.system_template is not None and t.template is prompt.system_template
    ]
    if not own:
        raise RenderError(f"prompt `{prompt_key}` has no `system_template` to render")
    infos = {key: templates.of_fragment(key) for key in pack.fragments}
    budget = render_budget()
    if budget:
        # Measured before anything is expanded: an include bomb is refused at once.
        found = Expander(infos).expansion(own[0])
        if found.size > budget:
            raise RenderError(
                f"prompt `{prompt_key}` would be {found.size:,} characters once its fragments "
                f"are expanded, over the budget of {budget:,} ({MAX_RENDER_SIZE_ENV} raises "
                f"it); most of it comes from {found.shown(prompt_key)}"
            )
    state = _State(
        values=dict(values or {}),
        declared=variable_values(analysis, prompt_key),
        infos=infos,
        budget=budget,
    )
    try:
        text = _expand(own[0], (prompt_key,), state)
    except RecursionError:
        raise RenderError(
            f"prompt `{prompt_key}`'s fragments nest too deeply to render (an include "
            "chain of thousands of fragments)"
        ) from None
    return Rendered(
        prompt=prompt_key,
        text=text,
        includes=tuple(state.includes),
        filled=tuple(state.filled.values()),
        unfilled=tuple(state.unfilled),
        runtime=tuple(state.runtime),
        problems=tuple(state.problems),
        characters=len(text),
        tokens=estimate_tokens(text),
    )
