"""Document kinds and how a file is recognised as one.

Two kinds are analysed: PromptPack files and agent-extension manifests. A kind is
chosen from the file name first and, for other YAML/JSON files, from the content
(top-level ``prompts`` plus ``template_engine``, or a ``$schema`` naming
promptpack.org). A file named ``manifest.yaml``/``.yml`` is a manifest when it has
a top-level ``id`` and an ``entrypoint`` or ``agent``; files matching a configured
``manifests`` glob are manifests whatever their content.
"""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import PurePath

PROMPTPACK = "promptpack"
MANIFEST = "agent-extension-manifest"
MANIFEST_NAMES = ("manifest.yaml", "manifest.yml")

PACK_PATTERNS = (
    "*.promptpack.yaml",
    "*.promptpack.yml",
    "*.promptpack.json",
    "promptpack.yaml",
    "promptpack.yml",
    "*.pack.json",
)
DATA_SUFFIXES = (".yaml", ".yml", ".json")

_TOP_KEY = re.compile(r'^(?:"([^"\n]+)"|\'([^\'\n]+)\'|([A-Za-z_$][\w$-]*))[ \t]*:', re.M)


def kind_from_name(path: str) -> str | None:
    name = PurePath(path).name
    if any(fnmatch.fnmatchcase(name, p) for p in PACK_PATTERNS):
        return PROMPTPACK
    return None


def is_data_file(path: str) -> bool:
    return PurePath(path).suffix.lower() in DATA_SUFFIXES


def sniff(text: str) -> str | None:
    """Recognise a PromptPack by content without a full parse."""
    if "promptpack.org" in text[:4000] and "$schema" in text[:4000]:
        return PROMPTPACK
    if "prompts" not in text or "template_engine" not in text:
        return None
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            return PROMPTPACK if _yaml_top_keys(text) >= {"prompts", "template_engine"} else None
        if isinstance(data, dict) and "prompts" in data and "template_engine" in data:
            return PROMPTPACK
        return None
    if _yaml_top_keys(text) >= {"prompts", "template_engine"}:
        return PROMPTPACK
    return None


def _yaml_top_keys(text: str) -> set[str]:
    keys: set[str] = set()
    for match in _TOP_KEY.finditer(text):
        keys.add(match.group(1) or match.group(2) or match.group(3))
    # JSON on one line or indented JSON: fall back to any quoted key.
    if not keys >= {"prompts", "template_engine"}:
        for key in ("prompts", "template_engine"):
            if f'"{key}"' in text:
                keys.add(key)
    return keys


def is_manifest(path: str, text: str, globs: tuple[str, ...] = ()) -> bool:
    """Whether ``path`` is an agent-extension manifest (by configured glob or name + content)."""
    posix = PurePath(path).as_posix()
    if any(fnmatch.fnmatch(posix, g) or fnmatch.fnmatch(PurePath(path).name, g) for g in globs):
        return True
    if PurePath(path).name not in MANIFEST_NAMES:
        return False
    keys = {m.group(1) or m.group(2) or m.group(3) for m in _TOP_KEY.finditer(text)}
    return "id" in keys and bool(keys & {"entrypoint", "agent"})


def detect(path: str | None, text: str, manifest_globs: tuple[str, ...] = ()) -> str | None:
    if path is not None:
        by_name = kind_from_name(path)
        if by_name is not None:
            return by_name
        if is_manifest(path, text, manifest_globs):
            return MANIFEST
    return sniff(text)
