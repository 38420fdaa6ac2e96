"""The builder of the pack model: ``build_pack`` reads the YAML tree.

It never rejects input: a field of the wrong type is simply absent from the model
(the schema validation reports it), so a document that is mid-edit still yields
every part that can be read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pack_lsp.core.base.text import Span
from pack_lsp.core.model.pack.entities import (
    Agents,
    Artifact,
    Composition,
    Control,
    Eval,
    Fragment,
    Governance,
    Located,
    Member,
    ModelOverride,
    Obligation,
    Pack,
    Prompt,
    ProviderRequirement,
    Review,
    Skill,
    State,
    Step,
    Template,
    TemplateEngine,
    Tool,
    ToolPolicy,
    Transition,
    ValidatorDef,
    Variable,
    Workflow,
)
from pack_lsp.core.syntax.yamltree.data import to_data
from pack_lsp.core.syntax.yamltree.nodes import (
    AliasNode,
    MappingNode,
    Node,
    Pair,
    ScalarNode,
    SequenceNode,
    deref,
)

# The builder makes a ``Located`` for almost every scalar it reads (tens of thousands
# in a large pack, and again for every prompt after an edit). The frozen dataclass's
# ``__init__`` sets each field through ``object.__setattr__`` and cost about as much
# as the rest of the lookup; ``_loc`` makes the same object from its two slots.
_new = object.__new__
_set_value = vars(Located)["value"].__set__
_set_span = vars(Located)["span"].__set__


def _loc(value: Any, span: Span) -> Located:
    """``Located(value=value, span=span)``, built without the dataclass's ``__init__``."""
    loc: Located = _new(Located)
    _set_value(loc, value)
    _set_span(loc, span)
    return loc


def _scalar(m: MappingNode, key: str) -> ScalarNode | None:
    """The scalar under ``key`` (through an alias), as ``m.get(key)`` would find it."""
    pair = m.effective.get(key)
    if pair is None:
        return None
    node: Node | None = pair.value
    if type(node) is AliasNode:
        node = node.target
    return node if isinstance(node, ScalarNode) else None


def _located(node: Node | None, *types: type) -> Located | None:
    node = deref(node)
    if not isinstance(node, ScalarNode):
        return None
    value = node.value
    if types and (not isinstance(value, types) or (isinstance(value, bool) and bool not in types)):
        return None
    return _loc(value, node.span)


def _str(m: MappingNode, key: str) -> Located | None:
    node = _scalar(m, key)
    if node is not None and isinstance(node.value, str):
        return _loc(node.value, node.span)
    return None


def _any(m: MappingNode, key: str) -> Located | None:
    node = _scalar(m, key)
    return _loc(node.value, node.span) if node is not None else None


def _bool(m: MappingNode, key: str) -> Located | None:
    node = _scalar(m, key)
    if node is not None and isinstance(node.value, bool):
        return _loc(node.value, node.span)
    return None


def _int(m: MappingNode, key: str) -> Located | None:
    node = _scalar(m, key)
    if node is not None and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _loc(node.value, node.span)
    return None


def _str_list(node: Node | None) -> list[Located]:
    node = deref(node)
    if not isinstance(node, SequenceNode):
        return []
    out: list[Located] = []
    for item in node.values():
        if isinstance(item, ScalarNode) and isinstance(item.value, str):
            out.append(_loc(item.value, item.span))
    return out


def _template(node: Node | None, field: str) -> Template | None:
    node = deref(node)
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return Template(text=node.value, span=node.span, node=node, field=field)
    return None


def _mapping(node: Node | None) -> MappingNode | None:
    node = deref(node)
    return node if isinstance(node, MappingNode) else None


def _span_of(node: Node | None) -> Span | None:
    node = deref(node)
    return node.span if node is not None else None


def _key_span(pair: Pair | None) -> Span | None:
    return pair.key.span if pair is not None else None


def _entries(node: Node | None) -> list[tuple[str, Pair, MappingNode | None]]:
    m = _mapping(node)
    if m is None:
        return []
    return [(k, p, _mapping(p.value)) for k, p in m.items()]


def _value_span(pair: Pair) -> Span:
    target = deref(pair.value)
    return target.span if target is not None else pair.value.span


def build_variable(node: Node) -> Variable | None:
    m = _mapping(node)
    if m is None:
        return None
    default_pair = m.pair("default")
    default = None
    if default_pair is not None:
        target = deref(default_pair.value)
        if target is not None:
            default = _loc(to_data(target), target.span)
    enum = None
    validation = _mapping(m.get("validation"))
    if validation is not None:
        enum_node = deref(validation.get("enum"))
        if isinstance(enum_node, SequenceNode):
            enum = [_loc(to_data(item), item.span) for item in enum_node.values()]
    return Variable(
        name=_str(m, "name"),
        type=_str(m, "type"),
        required=_bool(m, "required"),
        default=default,
        default_key_span=default_pair.key.span if default_pair is not None else None,
        description=_str(m, "description"),
        enum=enum,
        span=m.span,
    )


def build_evals(node: Node | None) -> list[Eval]:
    seq = deref(node)
    out: list[Eval] = []
    if isinstance(seq, SequenceNode):
        for item in seq.values():
            if isinstance(item, MappingNode):
                out.append(
                    Eval(
                        id=_str(item, "id"),
                        type=_str(item, "type"),
                        span=item.span,
                    )
                )
    return out


def _validators(node: Node | None) -> list[ValidatorDef]:
    seq = deref(node)
    out: list[ValidatorDef] = []
    if isinstance(seq, SequenceNode):
        for item in seq.values():
            if isinstance(item, MappingNode):
                out.append(
                    ValidatorDef(id=_str(item, "id"), type=_str(item, "type"), span=item.span)
                )
    return out


def build_prompt(key: str, pair: Pair) -> Prompt:
    m = _mapping(pair.value)
    fields: dict[str, Any] = {"key": key, "key_span": pair.key.span, "span": _value_span(pair)}
    if m is None:
        return Prompt(**fields)
    variables: list[Variable] = []
    vars_node = deref(m.get("variables"))
    if isinstance(vars_node, SequenceNode):
        for item in vars_node.values():
            var = build_variable(item)
            if var is not None:
                variables.append(var)
    policy = None
    pm = _mapping(m.get("tool_policy"))
    if pm is not None:
        policy = ToolPolicy(
            tool_choice=_str(pm, "tool_choice"),
            blocklist=_str_list(pm.get("blocklist")),
            span=pm.span,
        )
    overrides: dict[str, ModelOverride] = {}
    for okey, opair, om in _entries(m.get("model_overrides")):
        templates: list[Template] = []
        if om is not None:
            for field in ("system_template", "system_template_prefix", "system_template_suffix"):
                t = _template(om.get(field), field)
                if t is not None:
                    templates.append(t)
        overrides[okey] = ModelOverride(
            key=okey, key_span=opair.key.span, span=_value_span(opair), templates=templates
        )
    fields.update(
        id=_str(m, "id"),
        provider=_str(m, "provider"),
        validators=_validators(m.get("validators")),
        name=_str(m, "name"),
        version=_str(m, "version"),
        description=_str(m, "description"),
        system_template=_template(m.get("system_template"), "system_template"),
        variables=variables,
        tools=_str_list(m.get("tools")),
        tool_policy=policy,
        model_overrides=overrides,
        evals=build_evals(m.get("evals")),
        node=m,
    )
    return Prompt(**fields)


def build_state(key: str, pair: Pair) -> State:
    m = _mapping(pair.value)
    fields: dict[str, Any] = {"key": key, "key_span": pair.key.span, "span": _value_span(pair)}
    if m is None:
        return State(**fields)
    transitions: list[Transition] = []
    on_event = _mapping(m.get("on_event"))
    if on_event is not None:
        for _ev, epair in on_event.items():
            event = _located(epair.key)
            if event is None:
                continue
            event = _loc(epair.key_text, event.span)
            transitions.append(Transition(event=event, target=_located(epair.value, str)))
    artifacts: dict[str, Artifact] = {}
    for akey, apair, am in _entries(m.get("artifacts")):
        artifacts[akey] = Artifact(
            key=akey,
            key_span=apair.key.span,
            span=_value_span(apair),
            type=_str(am, "type") if am is not None else None,
            mode=_str(am, "mode") if am is not None else None,
            description=_str(am, "description") if am is not None else None,
        )
    fields.update(
        prompt_task=_str(m, "prompt_task"),
        description=_str(m, "description"),
        on_event=transitions,
        on_event_key_span=_key_span(m.pair("on_event")),
        terminal=_bool(m, "terminal"),
        max_visits=_int(m, "max_visits"),
        on_max_visits=_str(m, "on_max_visits"),
        persistence=_str(m, "persistence"),
        orchestration=_str(m, "orchestration"),
        skills=_str(m, "skills"),
        artifacts=artifacts,
        composition=_str(m, "composition"),
        control=_str(m, "control"),
    )
    return State(**fields)


def _budget(m: MappingNode) -> Located | None:
    engine = _mapping(m.get("engine"))
    budget = _mapping(engine.get("budget")) if engine is not None else None
    return _int(budget, "max_total_visits") if budget is not None else None


def build_workflow(pair: Pair) -> Workflow:
    m = _mapping(pair.value)
    fields: dict[str, Any] = {
        "key": "workflow",
        "key_span": pair.key.span,
        "span": _value_span(pair),
    }
    if m is None:
        return Workflow(**fields)
    states = {k: build_state(k, p) for k, p, _ in _entries(m.get("states"))}
    fields.update(
        version=_any(m, "version"),
        entry=_str(m, "entry"),
        max_total_visits=_budget(m),
        states=states,
    )
    return Workflow(**fields)


def build_agents(pair: Pair) -> Agents:
    m = _mapping(pair.value)
    fields: dict[str, Any] = {"key": "agents", "key_span": pair.key.span, "span": _value_span(pair)}
    if m is None:
        return Agents(**fields)
    members: dict[str, Member] = {}
    for key, mpair, mm in _entries(m.get("members")):
        mfields: dict[str, Any] = {
            "key": key,
            "key_span": mpair.key.span,
            "span": _value_span(mpair),
        }
        if mm is not None:
            mfields.update(
                description=_str(mm, "description"),
                tags=_str_list(mm.get("tags")),
                tags_span=_span_of(mm.get("tags")),
                input_modes=_str_list(mm.get("input_modes")),
                input_modes_span=_span_of(mm.get("input_modes")),
                output_modes=_str_list(mm.get("output_modes")),
                output_modes_span=_span_of(mm.get("output_modes")),
                state=_str(mm, "state"),
            )
        members[key] = Member(**mfields)
    fields.update(
        entry=_str(m, "entry"),
        members=members,
    )
    return Agents(**fields)


_REFERENCE = re.compile(r"\$\{[^}]*\}")


def _references(node: Node | None, out: list[Located]) -> None:
    """Every scalar string containing a `${...}` reference, anywhere under ``node``."""
    node = deref(node)
    if isinstance(node, ScalarNode):
        if isinstance(node.value, str) and "${" in node.value:
            out.append(_loc(node.value, node.span))
    elif isinstance(node, MappingNode):
        for _k, pair in node.items():
            _references(pair.value, out)
    elif isinstance(node, SequenceNode):
        for item in node.values():
            _references(item, out)


def build_step(node: Node, parent: str | None = None) -> Step | None:
    m = _mapping(node)
    if m is None:
        return None
    step_id = _str(m, "id")
    branches: list[Step] = []
    seq = deref(m.get("branches"))
    if isinstance(seq, SequenceNode):
        for item in seq.values():
            child = build_step(item, step_id.text if step_id is not None else "")
            if child is not None:
                branches.append(child)
    references: list[Located] = []
    for field in ("input", "args", "predicate"):
        _references(m.get(field), references)
    modifiers = _mapping(m.get("modifiers"))
    return Step(
        id=step_id,
        kind=_str(m, "kind"),
        prompt_task=_str(m, "prompt_task"),
        provider=_str(m, "provider"),
        tool=_str(m, "tool"),
        tools=_str_list(m.get("tools")),
        then=_str(m, "then"),
        else_=_str(m, "else"),
        depends_on=_str_list(m.get("depends_on")),
        output_schema=_str(m, "output_schema"),
        evals=_str_list(modifiers.get("eval")) if modifiers is not None else [],
        references=references,
        branches=branches,
        parent=parent,
        span=m.span,
    )


def build_compositions(node: Node | None) -> dict[str, Composition]:
    out: dict[str, Composition] = {}
    for key, pair, cm in _entries(node):
        steps: list[Step] = []
        output = None
        if cm is not None:
            output = _str(cm, "output")
            seq = deref(cm.get("steps"))
            if isinstance(seq, SequenceNode):
                for item in seq.values():
                    step = build_step(item)
                    if step is not None:
                        steps.append(step)
        out[key] = Composition(
            key=key, key_span=pair.key.span, span=_value_span(pair), steps=steps, output=output
        )
    return out


def build_providers(node: Node | None) -> list[ProviderRequirement]:
    seq = deref(node)
    out: list[ProviderRequirement] = []
    if not isinstance(seq, SequenceNode):
        return out
    for item in seq.values():
        if isinstance(item, ScalarNode) and isinstance(item.value, str):
            out.append(
                ProviderRequirement(
                    key=_loc(item.value, item.span),
                    shorthand=True,
                    span=item.span,
                )
            )
        elif isinstance(item, MappingNode):
            out.append(
                ProviderRequirement(
                    key=_str(item, "key"),
                    role=_str(item, "role"),
                    required=_bool(item, "required"),
                    span=item.span,
                )
            )
    return out


def build_governance(node: Node | None, where: str) -> Governance | None:
    m = _mapping(node)
    if m is None:
        return None
    obligations: list[Obligation] = []
    seq = deref(m.get("obligations"))
    if isinstance(seq, SequenceNode):
        for item in seq.values():
            if not isinstance(item, MappingNode):
                continue
            controls: list[Control] = []
            cseq = deref(item.get("controls"))
            if isinstance(cseq, SequenceNode):
                for citem in cseq.values():
                    if not isinstance(citem, MappingNode):
                        continue
                    for ckey, cpair in citem.items():
                        value = _located(cpair.value, str)
                        if value is not None:
                            controls.append(Control(kind=ckey, value=value, span=citem.span))
            obligations.append(Obligation(id=_str(item, "id"), controls=controls, span=item.span))
    reviews: list[Review] = []
    seq = deref(m.get("reviews"))
    if isinstance(seq, SequenceNode):
        for item in seq.values():
            if isinstance(item, MappingNode):
                reviews.append(
                    Review(
                        id=_str(item, "id"),
                        cadence=_str(item, "cadence"),
                        satisfies=_str_list(item.get("satisfies")),
                        eval=_str(item, "eval"),
                        span=item.span,
                    )
                )
    vocab = _mapping(m.get("vocabularies"))
    terms: list[tuple[str, Located]] = []
    for field in TERM_FIELDS:
        node = deref(m.get(field))
        found = _str_list(node) if isinstance(node, SequenceNode) else [_str(m, field)]
        terms.extend((field, t) for t in found if t is not None)
    seq = deref(m.get("obligations"))
    if isinstance(seq, SequenceNode):
        for item in seq.values():
            if isinstance(item, MappingNode):
                ob = _str(item, "obligation")
                if ob is not None:
                    terms.append(("obligations[].obligation", ob))
                applies = _mapping(item.get("applies_to"))
                if applies is not None:
                    for key, _pair in applies.items():
                        value = _str(applies, key)
                        if value is not None:
                            terms.append((f"obligations[].applies_to.{key}", value))
    seq = deref(m.get("reviews"))
    if isinstance(seq, SequenceNode):
        for item in seq.values():
            if isinstance(item, MappingNode) and (t := _str(item, "type")) is not None:
                terms.append(("reviews[].type", t))
    return Governance(
        where=where,
        obligations=obligations,
        reviews=reviews,
        vocabularies=[k for k, _ in vocab.items()] if vocab is not None else [],
        fields=[k for k, _ in m.items()],
        terms=terms,
        span=m.span,
    )


#: Governance properties whose values are open-list terms (RFC 0013, RFC 0016).
TERM_FIELDS = (
    "operator_role",
    "risk_classification",
    "capabilities",
    "intended_deployment_contexts",
)


def build_skills(node: Node | None) -> list[Skill]:
    seq = deref(node)
    out: list[Skill] = []
    if not isinstance(seq, SequenceNode):
        return out
    for item in seq.values():
        if isinstance(item, ScalarNode) and isinstance(item.value, str):
            out.append(Skill(path=_loc(item.value, item.span), span=item.span))
        elif isinstance(item, MappingNode):
            if item.get("path") is not None:
                out.append(Skill(path=_str(item, "path"), span=item.span))
            else:
                out.append(Skill(name=_str(item, "name"), span=item.span))
    return out


def build_pack(root: Node | None, reuse: Mapping[str, Prompt] | None = None) -> Pack | None:
    """Build the model; ``None`` only when the document is not a mapping at all.

    ``reuse`` holds prompts already built from the very same pairs of ``prompts``
    (incremental analysis: the prompts before an edit); they are taken as they are.
    """
    m = _mapping(root)
    if m is None:
        return None
    te = None
    tem = _mapping(m.get("template_engine"))
    if tem is not None:
        te = TemplateEngine(
            version=_str(tem, "version"),
            syntax=_str(tem, "syntax"),
            features=_str_list(tem.get("features")),
            span=tem.span,
        )
    prompts: dict[str, Prompt] = {}
    for k, p, _ in _entries(m.get("prompts")):
        built = reuse.get(k) if reuse is not None else None
        prompts[k] = built if built is not None else build_prompt(k, p)
    fragments: dict[str, Fragment] = {}
    for key, pair, _ in _entries(m.get("fragments")):
        fragments[key] = Fragment(
            key=key,
            key_span=pair.key.span,
            span=_value_span(pair),
            template=_template(pair.value, "fragment"),
        )
    tools: dict[str, Tool] = {}
    for key, pair, tm in _entries(m.get("tools")):
        tools[key] = Tool(
            key=key,
            key_span=pair.key.span,
            span=_value_span(pair),
            name=_str(tm, "name") if tm is not None else None,
            description=_str(tm, "description") if tm is not None else None,
            parameters=to_data(tm.get("parameters")) if tm is not None else None,
        )
    wf_pair = m.pair("workflow")
    ag_pair = m.pair("agents")
    requires = _mapping(m.get("requires"))
    providers_node = requires.get("providers") if requires is not None else None
    governance: list[Governance] = []
    metadata = _mapping(m.get("metadata"))
    if metadata is not None:
        g = build_governance(metadata.get("governance"), "metadata.governance")
        if g is not None:
            governance.append(g)
    agents_m = _mapping(m.get("agents"))
    if agents_m is not None:
        for key, _pair, mm in _entries(agents_m.get("members")):
            if mm is not None:
                g = build_governance(mm.get("governance"), f"agents.members.{key}.governance")
                if g is not None:
                    governance.append(g)

    return Pack(
        id=_str(m, "id"),
        name=_str(m, "name"),
        version=_str(m, "version"),
        description=_str(m, "description"),
        template_engine=te,
        prompts=prompts,
        fragments=fragments,
        tools=tools,
        workflow=build_workflow(wf_pair)
        if wf_pair is not None and _mapping(wf_pair.value)
        else None,
        agents=build_agents(ag_pair) if ag_pair is not None and _mapping(ag_pair.value) else None,
        skills=build_skills(m.get("skills")),
        evals=build_evals(m.get("evals")),
        compositions=build_compositions(m.get("compositions")),
        compositions_span=_span_of(m.get("compositions")),
        providers=build_providers(providers_node),
        providers_span=_span_of(providers_node),
        governance=governance,
        span=m.span,
    )
