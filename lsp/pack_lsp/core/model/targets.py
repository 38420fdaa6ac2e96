"""Deploy targets: the runtimes a pack is deployed to.

``targets = [...]`` in the configuration (``--target`` on the command line, the
editor's ``packLsp.targets``) names the runtimes that will load a pack: ``omnia``,
``promptpack-python``, ``promptpack-langchainjs`` and ``promptkit`` (the ``promptkit``
profile, which naming it selects). A pack embedded in a Kubernetes ConfigMap is
checked for ``omnia`` when none is configured. This module holds the names and the
commit each runtime was read at; what each runtime does with a pack is in
``core/model/runtimes.py``, the PT rules that report it in
``core/checks/rules/targets.py`` (docs/decisions.md, D55–D59).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

OMNIA = "omnia"
PYTHON = "promptpack-python"
LANGCHAINJS = "promptpack-langchainjs"
PROMPTKIT = "promptkit"

#: Every target name, in the order the docs and the hover list them.
TARGET_NAMES = (OMNIA, PYTHON, LANGCHAINJS, PROMPTKIT)


@dataclass(frozen=True, slots=True)
class Runtime:
    """A runtime read at a pinned commit."""

    name: str  # the target's name in the configuration
    title: str  # how messages name it
    repository: str
    commit: str
    modelled: str  # the versions modelled, in a sentence


RUNTIMES: Mapping[str, Runtime] = MappingProxyType(
    {
        OMNIA: Runtime(
            OMNIA,
            "Omnia",
            "AltairaLabs/Omnia",
            "c7428e31ec644ee6a0f66ceeab0117a96fafe221",
            "the operator and runtime at this commit: its embedded fallback schema "
            "(labelled 1.3.1), gojsonschema v1.2.0, the PromptKit SDK 1.5.5",
        ),
        PYTHON: Runtime(
            PYTHON,
            "promptpack-python",
            "AltairaLabs/promptpack-python",
            "c78e36bd472f580a2d7fc83bb821b7e05cec61e6",
            "the `promptpack` and `promptpack-langchain` packages at this commit",
        ),
        LANGCHAINJS: Runtime(
            LANGCHAINJS,
            "promptpack-langchainjs",
            "AltairaLabs/promptpack-langchainjs",
            "b8a0fa2402b30573e58245b3c37dc0d09e7c4b1b",
            "the package at this commit",
        ),
    }
)


# ------------------------------------------------------------------- configuration


def deploy_targets(configured: Sequence[str] | None, *, hosted: bool = False) -> tuple[str, ...]:
    """The targets a pack is checked for: those configured, else ``omnia`` for a pack
    embedded in a Kubernetes ConfigMap (Omnia is what deploys those), else none."""
    if configured is not None:
        return tuple(configured)
    return (OMNIA,) if hosted else ()


def parse_target(value: object) -> str:
    """A target name as the configuration writes it (``promptkit@1.5.3`` names the
    profile's release, checked by the configuration); ValueError for anything else."""
    text = str(value).strip()
    name = text.partition("@")[0].strip()
    if name not in TARGET_NAMES:
        from pack_lsp.core.base.suggest import did_you_mean

        known = ", ".join(f"`{n}`" for n in TARGET_NAMES)
        hint = did_you_mean(name, TARGET_NAMES)
        raise ValueError(f"unknown target {text!r}{hint} (targets: {known})")
    if "@" in text and name != PROMPTKIT:
        raise ValueError(f"target {text!r}: only `promptkit` takes a release (`promptkit@1.5.11`)")
    return text
