"""Two throw-away virtual environments holding the official A2A Python SDK.

The SDK is a test-only oracle: derived Agent Cards must be accepted by the
0.3 SDK's pydantic ``AgentCard`` model and by the 1.x SDK's protobuf
``AgentCard`` message. The two major versions cannot be installed side by side,
so each gets its own environment under ``.tools/`` (git-ignored), created once
and reused. Run ``python tests/a2a_sdk_envs.py`` to create both ahead of time.

Cards are checked by running a small script inside the environment with the
cards as JSON on standard input; it prints one JSON verdict per card.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools"


@dataclass(frozen=True)
class SdkEnv:
    name: str
    requirement: str

    @property
    def path(self) -> Path:
        return TOOLS / self.name

    @property
    def python(self) -> Path:
        return self.path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")

    @property
    def marker(self) -> Path:
        return self.path / ".installed"


SDK_03 = SdkEnv("a2a-sdk-0.3", "a2a-sdk<0.4")
SDK_1 = SdkEnv("a2a-sdk-1", "a2a-sdk>=1,<2")


def ensure(env: SdkEnv) -> Path:
    """Create the environment and install the SDK once; return its interpreter."""
    if env.marker.is_file() and env.python.is_file():
        return env.python
    env.path.parent.mkdir(parents=True, exist_ok=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(env.path)
    subprocess.run(
        [
            str(env.python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            env.requirement,
        ],
        check=True,
    )
    version = subprocess.run(
        [str(env.python), "-c", "import importlib.metadata as m; print(m.version('a2a-sdk'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    env.marker.write_text(version + "\n", encoding="utf-8")
    return env.python


# Runs inside the 0.3 environment: the SDK's pydantic model of an AgentCard.
CHECK_03 = r"""
import json, sys
from a2a.types import AgentCard
out = []
for name, card in json.load(sys.stdin).items():
    try:
        AgentCard.model_validate(card)
        out.append({"name": name, "ok": True})
    except Exception as exc:
        out.append({"name": name, "ok": False, "error": str(exc)})
print(json.dumps(out))
"""

# Runs inside the 1.x environment: a strict protobuf JSON parse (unknown fields
# rejected) followed by the fields the proto marks REQUIRED.
CHECK_1 = r"""
import json, sys
from google.protobuf import json_format
from a2a.types import AgentCard

def missing(card):
    gaps = []
    for field in ("name", "description", "version"):
        if not getattr(card, field):
            gaps.append(field)
    if not card.HasField("capabilities"):
        gaps.append("capabilities")
    if not card.supported_interfaces:
        gaps.append("supportedInterfaces")
    for i, iface in enumerate(card.supported_interfaces):
        for field in ("url", "protocol_binding", "protocol_version"):
            if not getattr(iface, field):
                gaps.append(f"supportedInterfaces[{i}].{field}")
    if not card.default_input_modes:
        gaps.append("defaultInputModes")
    if not card.default_output_modes:
        gaps.append("defaultOutputModes")
    if not card.skills:
        gaps.append("skills")
    for i, skill in enumerate(card.skills):
        for field in ("id", "name", "description"):
            if not getattr(skill, field):
                gaps.append(f"skills[{i}].{field}")
        if not skill.tags:
            gaps.append(f"skills[{i}].tags")
    return gaps

out = []
for name, card in json.load(sys.stdin).items():
    try:
        message = json_format.ParseDict(card, AgentCard(), ignore_unknown_fields=False)
    except Exception as exc:
        out.append({"name": name, "ok": False, "error": str(exc)})
        continue
    gaps = missing(message)
    if gaps:
        out.append({"name": name, "ok": False, "error": "missing required: " + ", ".join(gaps)})
    else:
        out.append({"name": name, "ok": True})
print(json.dumps(out))
"""


def check(env: SdkEnv, script: str, cards: dict[str, Any]) -> list[dict[str, Any]]:
    """Run ``script`` in ``env`` over ``cards`` ({label: card}); one verdict per card."""
    python = ensure(env)
    done = subprocess.run(
        [str(python), "-c", script],
        input=json.dumps(cards),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{env.name} check script failed:\n{done.stderr}")
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


if __name__ == "__main__":
    for sdk in (SDK_03, SDK_1):
        print(sdk.name, ensure(sdk), sdk.marker.read_text(encoding="utf-8").strip())
    sys.exit(0)
