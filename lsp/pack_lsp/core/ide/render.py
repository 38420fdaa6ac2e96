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

``render(..., target=T)`` renders as a deploy target's runtime does
(``core/model/runtimes.py``): promptpack-python fills only ``{{name}}`` and
``{{fragment:name}}`` (defaults applied, an optional variable without one written as
nothing, an undeclared one left as written, a required one missing throws);
promptpack-langchainjs substitutes fragments by bare name in at most ten passes, then
variables by the pattern of ``template_engine.syntax``, and throws on a variable with
no value. What stays as written is listed in ``literal``, what the runtime throws in
``throws`` (the text is then empty). ``omnia`` and ``promptkit`` run PromptKit: the
rendering is pack-lsp's own, as without a target, and says so.

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
from pack_lsp.core.model import runtimes
from pack_lsp.core.model.expansion import MAX_RENDER_SIZE_ENV, Expander, render_budget
from pack_lsp.core.model.targets import LANGCHAINJS, PYTHON, RUNTIMES, TARGET_NAMES
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
    #: The deploy target rendered for (None: pack-lsp's own rendering).
    target: str | None = None
    #: How that target renders, in a sentence.
    semantics: str = ""
    #: Placeholders the target leaves as written.
    literal: tuple[str, ...] = ()
    #: What the target throws instead of rendering (the text is then empty).
    throws: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = self._json()
        if self.target is not None:
            out.update(
                target=self.target,
                semantics=self.semantics,
                literal=list(self.literal),
                throws=self.throws,
            )
        return out

    def _json(self) -> dict[str, Any]:
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
        who = f" as {self.target} renders it" if self.target is not None else ""
        head = [
            f"# Prompt `{self.prompt}` rendered by pack-lsp{who}",
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
        if self.semantics:
            head.append(f"# {self.semantics}")
        if self.literal:
            head.append(f"# left as written by {self.target}: {', '.join(self.literal)}")
        if self.throws is not None:
            head.append(f"# {self.target} throws: {self.throws}")
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


def render(
    analysis: Analysis,
    prompt_key: str,
    values: dict[str, str] | None = None,
    target: str | None = None,
) -> Rendered:
    """The rendered system template of ``prompt_key`` (see the module docstring), as
    ``target`` renders it when one is given.

    ``target`` may name a release as the configuration does (``promptkit@1.5.11``):
    it renders as the target does. Raises ``RenderError`` when the document has no such
    prompt, the prompt no system template, or ``target`` is not a target's name.
    """
    if target is not None:
        target = target.partition("@")[0].strip()
    if target is not None and target not in TARGET_NAMES:
        known = ", ".join(TARGET_NAMES)
        raise RenderError(f"`{target}` is not a deploy target (targets: {known})")
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
    if target in (PYTHON, LANGCHAINJS):
        return _as_runtime(analysis, prompt_key, own[0].template.text, dict(values or {}), target)
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
        target=target,
        semantics=_PROMPTKIT_NOTE.format(target=target) if target is not None else "",
    )


_PROMPTKIT_NOTE = (
    "{target} runs the pack with PromptKit: rendered as pack-lsp renders without a target"
)
# ------------------------------------------------------------- as a runtime renders


def _runtime_text(value: Any) -> str:
    """A value as promptpack-python and -langchainjs write it into a prompt (a string
    as is, JSON for the rest; Python writes booleans in lower case as JSON does)."""
    return as_text(value)


@dataclass
class _Runtime:
    target: str
    values: dict[str, str]
    declared: dict[str, tuple[bool, bool, Any]]  # name -> (required, has default, default)
    fragments: dict[str, str]
    includes: list[str] = field(default_factory=list)
    filled: dict[str, Filled] = field(default_factory=dict)
    literal: list[str] = field(default_factory=list)
    throws: str | None = None


class _Throw(Exception):
    pass


def _python_render(text: str, state: _Runtime, path: tuple[str, ...]) -> str:
    """promptpack-python's ``TemplateEngine.render`` as its LangChain template calls it
    (``strict=False``, after ``validate_variables`` applied the defaults)."""

    def one(m: re.Match[str]) -> str:
        key = m.group(1)
        if ":" in key:
            prefix, name = key.split(":", 1)
            if prefix == "fragment":
                if name in path:
                    raise _Throw(
                        f"RecursionError: fragment `{name}` includes itself "
                        f"({' > '.join((*path, name))})"
                    )
                if name not in state.fragments:
                    _note(state.literal, m.group())
                    return m.group()
                state.includes.append(" > ".join((*path, name)))
                return _python_render(state.fragments[name], state, (*path, name))
        return _variable(key, m.group(), state, python=True)

    for region in _unmatched(text, runtimes.PYTHON_PLACEHOLDER):
        _note(state.literal, region)
    return runtimes.PYTHON_PLACEHOLDER.sub(one, text)


def _variable(name: str, written: str, state: _Runtime, *, python: bool) -> str:
    if name in state.values:
        state.filled.setdefault(name, Filled(name, "value", state.values[name]))
        return state.values[name]
    declared = state.declared.get(name)
    if declared is not None and declared[1]:
        value = _runtime_text(declared[2])
        state.filled.setdefault(name, Filled(name, "default", value))
        return value
    if python:
        if declared is None:
            _note(state.literal, written)
            return written
        if declared[0]:
            raise _Throw(
                f"VariableValidationError: Variable '{name}': Required variable is missing"
            )
        state.filled.setdefault(name, Filled(name, "default", ""))
        return ""  # an optional variable without a default is None: written as nothing
    if declared is not None and declared[0]:
        raise _Throw(f"ValidationError: Required variable '{name}' is missing")
    raise _Throw(f"TemplateError: Variable '{name}' is not defined")


def _note(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)


def _declared(analysis: Analysis, prompt_key: str) -> dict[str, tuple[bool, bool, Any]]:
    """name → (required, has a default, the default) of the prompt's variables."""
    data = analysis.data
    prompts = data.get("prompts") if isinstance(data, dict) else None
    prompt = prompts.get(prompt_key) if isinstance(prompts, dict) else None
    variables = prompt.get("variables") if isinstance(prompt, dict) else None
    out: dict[str, tuple[bool, bool, Any]] = {}
    for var in variables if isinstance(variables, list) else ():
        if isinstance(var, dict) and isinstance(var.get("name"), str):
            out.setdefault(
                var["name"], (var.get("required") is True, "default" in var, var.get("default"))
            )
    return out


def _fragment_texts(analysis: Analysis) -> dict[str, str]:
    data = analysis.data
    fragments = data.get("fragments") if isinstance(data, dict) else None
    if not isinstance(fragments, dict):
        return {}
    return {k: v for k, v in fragments.items() if isinstance(k, str) and isinstance(v, str)}


def _syntax(analysis: Analysis) -> str:
    data = analysis.data
    engine = data.get("template_engine") if isinstance(data, dict) else None
    syntax = engine.get("syntax") if isinstance(engine, dict) else None
    return syntax if isinstance(syntax, str) else "{{variable}}"


_SEMANTICS = {
    PYTHON: "promptpack-python fills `{{name}}` and `{{fragment:name}}` only (LangChain "
    "template, strict=False)",
    LANGCHAINJS: "promptpack-langchainjs substitutes fragments by bare name, then variables, "
    "with the pattern of template_engine.syntax `{syntax}`",
}


def _as_runtime(
    analysis: Analysis, prompt_key: str, template: str, values: dict[str, str], target: str
) -> Rendered:
    state = _Runtime(target, values, _declared(analysis, prompt_key), _fragment_texts(analysis))
    syntax = _syntax(analysis)
    try:
        if target == PYTHON:
            text = _python_render(template, state, (prompt_key,))
        else:
            text = _langchainjs_render(template, state, syntax, prompt_key)
    except _Throw as exc:
        state.throws = str(exc)
        text = ""
    commit = RUNTIMES[target].commit[:8]
    return Rendered(
        prompt=prompt_key,
        text=text,
        includes=tuple(state.includes),
        filled=tuple(state.filled.values()),
        characters=len(text),
        tokens=estimate_tokens(text),
        target=target,
        semantics=f"{_SEMANTICS[target].replace('{syntax}', syntax)}; read at {commit}",
        literal=tuple(state.literal),
        throws=state.throws,
    )


def _langchainjs_render(template: str, state: _Runtime, syntax: str, prompt_key: str) -> str:
    """promptpack-langchainjs' ``PromptPackTemplateEngine.render``: fragments first (by
    the syntax's pattern, a pass at a time, throwing after the tenth), then variables
    (defaults applied; a variable without a value throws)."""
    for name, (required, has_default, _) in state.declared.items():
        if required and not has_default and name not in state.values:  # validateVariables
            raise _Throw(f"ValidationError: Required variable '{name}' is missing")
    pattern = runtimes.langchainjs_pattern(syntax)
    if pattern is None:
        return template
    text = template
    passes = 0
    more = True
    while more and passes < runtimes.LANGCHAINJS_MAX_PASSES:
        more = False

        def fragment(m: re.Match[str]) -> str:
            nonlocal more
            name = m.group(1) if m.groups() else None
            if name is not None and name in state.fragments:
                more = True
                _note(state.includes, f"{prompt_key} > {name}")
                return state.fragments[name]
            return m.group()

        text = pattern.sub(fragment, text)
        passes += 1
        if len(text) > _MAX_RENDERED:
            raise _Throw("the fragments grow without end (a fragment includes itself)")
    if passes >= runtimes.LANGCHAINJS_MAX_PASSES:
        raise _Throw(
            "TemplateError: Maximum fragment substitution depth exceeded (possible circular "
            "reference)"
        )
    for region in _unmatched(text, pattern):
        _note(state.literal, region)
    return pattern.sub(lambda m: _variable(m.group(1), m.group(), state, python=False), text)


#: Text a rendering may grow to before it is taken for an endless inclusion.
_MAX_RENDERED = 1_000_000

_BRACES = re.compile(r"\{\{.*?\}\}|\$\{[^}]*\}", re.DOTALL)


def _unmatched(text: str, pattern: re.Pattern[str]) -> list[str]:
    """Placeholder-looking text the pattern does not take (left as written)."""
    return [m.group() for m in _BRACES.finditer(text) if pattern.fullmatch(m.group()) is None]
