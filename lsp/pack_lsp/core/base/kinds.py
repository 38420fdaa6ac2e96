"""Document kinds, and what a file's name says of its kind.

The kinds pack-lsp analyses: PromptPack files, agent-extension manifests and
Kubernetes manifests that carry packs, the documents of PromptKit arena projects
(one kind, ``ARENA``, whatever PromptKit kind the document declares: see
``core.arena_documents``); ``NOT_A_PACK`` is a file that is named or
given like a pack but is something else (it gets one line saying what). The
decision from content is ``core.recognize``'s. A file named ``manifest.yaml``/
``.yml`` is a manifest when it has a top-level ``id`` and a key only such a manifest
has (``MANIFEST_KEYS``: ``entrypoint``, ``agent``, ``depends_on``, ...); files
matching a configured ``manifests`` glob are manifests whatever their content.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import PurePath

PROMPTPACK = "promptpack"
MANIFEST = "agent-extension-manifest"
KUBERNETES = "kubernetes-manifest"
NOT_A_PACK = "not-a-pack"
ARENA = "arena-document"
MANIFEST_NAMES = ("manifest.yaml", "manifest.yml")
#: Top-level keys only a yodoca extension manifest has (with ``id``, they make a file
#: so named a manifest; one with neither ``entrypoint`` nor ``agent`` is then reported).
MANIFEST_KEYS = frozenset(
    {
        "entrypoint",
        "agent",
        "depends_on",
        "setup_instructions",
        "secrets",
        "schedules",
        "events",
        "agent_config",
        "agent_id",
    }
)

PACK_PATTERNS = (
    "*.promptpack.yaml",
    "*.promptpack.yml",
    "*.promptpack.json",
    "promptpack.yaml",
    "promptpack.yml",
    "*.pack.json",
)
DATA_SUFFIXES = (".yaml", ".yml", ".json")
#: The names of PromptKit arena configs (``config.arena.yaml``), each the root of a
#: project (``core.model.arena.project``).
ARENA_CONFIG_PATTERNS = ("*.arena.yaml", "*.arena.yml")

_TOP_KEY = re.compile(r'^(?:"([^"\n]+)"|\'([^\'\n]+)\'|([A-Za-z_$][\w$-]*))[ \t]*:', re.M)


def kind_from_name(path: str) -> str | None:
    name = PurePath(path).name
    if any(fnmatch.fnmatchcase(name, p) for p in PACK_PATTERNS):
        return PROMPTPACK
    return None


def is_data_file(path: str) -> bool:
    return PurePath(path).suffix.lower() in DATA_SUFFIXES


def is_manifest(path: str, text: str, globs: tuple[str, ...] = ()) -> bool:
    """Whether ``path`` is an agent-extension manifest (by configured glob or name + content)."""
    posix = PurePath(path).as_posix()
    if any(fnmatch.fnmatch(posix, g) or fnmatch.fnmatch(PurePath(path).name, g) for g in globs):
        return True
    if PurePath(path).name not in MANIFEST_NAMES:
        return False
    keys = {m.group(1) or m.group(2) or m.group(3) for m in _TOP_KEY.finditer(text)}
    return "id" in keys and bool(keys & MANIFEST_KEYS)


def is_arena_config_name(path: str | PurePath) -> bool:
    """Whether ``path`` is named like an arena config (``ARENA_CONFIG_PATTERNS``)."""
    name = PurePath(path).name
    return any(fnmatch.fnmatchcase(name, p) for p in ARENA_CONFIG_PATTERNS)
