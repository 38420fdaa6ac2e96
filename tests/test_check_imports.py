"""What a cold ``pack-lsp --check`` loads: every import is start-up time of a CI job.

Each test runs the command line in a fresh interpreter and reads ``sys.modules``
afterwards. pydantic validates configuration input only: a pack checked without a
configuration file (and without command-line settings to validate) must not load
it, nor the language-server stack.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "support.promptpack.yaml"
SERVER_STACK = {"pygls", "lsprotocol"}


def _check(cwd: Path, *args: str) -> tuple[set[str], dict[str, object]]:
    """Top-level packages and ``pack_lsp`` modules loaded by ``--check ... --format
    json`` run in ``cwd``, and its JSON output."""
    script = (
        "import sys\n"
        "from pack_lsp.cli import main\n"
        f"code = main(['--check', '--format', 'json', *{list(args)!r}])\n"
        "sys.stdout.flush()\n"
        "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, check=True
    )
    return set(proc.stderr.split()), json.loads(proc.stdout)


def _top(loaded: set[str]) -> set[str]:
    return {m.split(".")[0] for m in loaded}


def _plain_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "support.promptpack.yaml"
    shutil.copyfile(EXAMPLE, pack)
    return pack


def test_check_without_configuration_loads_no_pydantic(tmp_path: Path) -> None:
    pack = _plain_pack(tmp_path)
    loaded, out = _check(tmp_path, str(pack))
    assert out["summary"]["files"] == 1  # type: ignore[index]
    # The pack has agents: the cards were derived with the default settings.
    assert "pack_lsp.core.model.cards.derive" in loaded
    assert {"pydantic", "pydantic_core", *SERVER_STACK}.isdisjoint(_top(loaded))
    assert "pack_lsp.core.base.validation" not in loaded


def test_command_line_codes_need_no_pydantic(tmp_path: Path) -> None:
    """Overrides already in their normal form (codes, levels) are not validated again."""
    pack = _plain_pack(tmp_path)
    loaded, out = _check(
        tmp_path,
        str(pack),
        *("--select", "PP1,PP2", "--severity", "PP2=hint", "--ignore", "PP105"),
        *("--profile", "promptkit"),
    )
    assert out["summary"]["files"] == 1  # type: ignore[index]
    assert {"pydantic", *SERVER_STACK}.isdisjoint(_top(loaded))


def test_a_configuration_file_is_validated_by_pydantic(tmp_path: Path) -> None:
    """The other side: with a configuration file, pydantic validates it, and its
    settings apply (here: every finding ignored, and a cards table)."""
    pack = _plain_pack(tmp_path)
    (tmp_path / ".pack-lsp.toml").write_text(
        'ignore = ["ALL"]\n[cards]\nurl = "https://agents.example.com/{agent}"\n',
        encoding="utf-8",
    )
    loaded, out = _check(tmp_path, str(pack))
    assert "pydantic" in _top(loaded)
    assert "pack_lsp.core.base.validation" in loaded
    assert out["files"][0]["diagnostics"] == []  # type: ignore[index]
    assert SERVER_STACK.isdisjoint(_top(loaded))


def test_the_program_ends_with_the_output_and_status_of_main(tmp_path: Path) -> None:
    """Run as a program, a check ends the process itself (``os._exit``) once its output
    is flushed: what it printed and its exit status are those ``main`` returns."""
    from pack_lsp.cli import main

    broken = tmp_path / "broken.promptpack.yaml"
    broken.write_text("id: Bad Id\nname: ''\n", encoding="utf-8")
    pack = _plain_pack(tmp_path)
    for args in (
        [str(pack), str(broken), "--format", "text"],
        [str(broken), "--format", "json"],
        [str(pack), "--format", "json"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "pack_lsp", "--check", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        expected = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys\nfrom pack_lsp.cli import main\n"
                f"code = main(['--check', *{args!r}])\nsys.stdout.flush()\nsys.exit(code)",
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert proc.stdout and proc.stdout == expected.stdout
        assert proc.stderr == expected.stderr
        assert proc.returncode == expected.returncode
    assert main(["--check", str(broken), "--format", "json"]) == 1  # returns in-process
