"""The workspace of agent-extension manifests, and what a change affects.

Manifests refer to each other by extension id (``depends_on``, ``agent.uses_tools``),
so a manifest's diagnostics depend on the others. The index keeps every manifest
by path, the paths defining each id and the paths referring to each id, so that:

- cross-file rules look ids up without scanning the workspace;
- after one manifest changes, ``ManifestIndex.put`` says which *other* manifests
  must be re-checked (``affected``), and only those. A server re-publishes the
  diagnostics of exactly that set, opened in the editor or not.

Everything here is pure data and functions: no file system access, no editor.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pack_lsp.core.model.manifest.model import Manifest


@dataclass(frozen=True, slots=True)
class Facade:
    """What other manifests can see of one manifest: a change elsewhere affects nobody."""

    id: str | None
    provides_tools: bool
    agent: bool
    loaded: bool


def facade(manifest: Manifest | None) -> Facade | None:
    if manifest is None:
        return None
    return Facade(
        manifest.ext_id, manifest.provides_tools, manifest.agent is not None, manifest.loaded
    )


def _ref_ids(manifest: Manifest | None) -> frozenset[str]:
    return frozenset(r.id for r in manifest.references) if manifest is not None else frozenset()


def _dependencies(manifest: Manifest | None) -> frozenset[str]:
    """The ids a manifest makes yodoca load first (``depends_on``, when it is loaded)."""
    if manifest is None or not manifest.loaded:
        return frozenset()
    return frozenset(r.id for r in manifest.references if r.field == "depends_on")


class ManifestIndex:
    """Every manifest of a workspace, by path and by the ids they define and name."""

    def __init__(self, manifests: Iterable[Manifest] = ()) -> None:
        self._by_path: dict[str, Manifest] = {}
        self._definers: dict[str, list[str]] = {}  # id → paths, in insertion order
        self._referrers: dict[str, set[str]] = {}  # id → paths naming it
        for manifest in manifests:
            self.put(manifest, track=False)

    # ----------------------------------------------------------------- queries

    def __len__(self) -> int:
        return len(self._by_path)

    def __iter__(self) -> Iterator[Manifest]:
        return iter(self._by_path.values())

    def get(self, path: str) -> Manifest | None:
        return self._by_path.get(path)

    def ids(self) -> list[str]:
        return sorted(i for i, paths in self._definers.items() if paths)

    def defining(self, ext_id: str) -> list[Manifest]:
        """The manifests declaring ``ext_id``, first-indexed first."""
        return [self._by_path[p] for p in self._definers.get(ext_id, ())]

    def first(self, ext_id: str) -> Manifest | None:
        paths = self._definers.get(ext_id)
        return self._by_path[paths[0]] if paths else None

    def referring(self, ext_id: str) -> list[Manifest]:
        """The manifests naming ``ext_id`` in ``depends_on`` or ``uses_tools``."""
        return [self._by_path[p] for p in sorted(self._referrers.get(ext_id, ()))]

    def dependency_path(self, start: str, goal: str) -> list[str] | None:
        """Extension ids from ``start`` to ``goal`` following ``depends_on`` (shortest), or None.

        Only what yodoca resolves is followed: ``depends_on`` of the loaded manifests
        (enabled, named ``manifest.yaml``); ``uses_tools`` orders nothing.
        """
        parents: dict[str, str | None] = {start: None}
        queue = [start]
        for current in queue:
            if current == goal:
                chain: list[str] = []
                node: str | None = current
                while node is not None:
                    chain.append(node)
                    node = parents[node]
                return chain[::-1]
            manifest = next((m for m in self.defining(current) if m.loaded), None)
            for dep in sorted(_dependencies(manifest)):
                if dep not in parents:
                    parents[dep] = current
                    queue.append(dep)
        return None

    # ---------------------------------------------------------------- updates

    def put(self, manifest: Manifest, *, track: bool = True) -> frozenset[str]:
        """Add or replace the manifest at ``manifest.path``; return the other paths to re-check.

        ``track=False`` skips computing them (an empty set is returned): for loading
        a whole workspace, when everything is checked anyway.
        """
        path = manifest.path or ""
        old = self._by_path.get(path)
        before = affected(self, old, manifest) if track else frozenset()
        self._unlink(path, old)
        self._by_path[path] = manifest
        if manifest.ext_id is not None:
            self._definers.setdefault(manifest.ext_id, []).append(path)
        for ref_id in _ref_ids(manifest):
            self._referrers.setdefault(ref_id, set()).add(path)
        if not track:
            return frozenset()
        return (before | affected(self, old, manifest)) - {path}

    def remove(self, path: str) -> frozenset[str]:
        """Forget the manifest at ``path`` (deleted file); return the paths to re-check."""
        old = self._by_path.get(path)
        if old is None:
            return frozenset()
        before = affected(self, old, None)
        self._unlink(path, old)
        del self._by_path[path]
        return before - {path}

    def _unlink(self, path: str, old: Manifest | None) -> None:
        if old is None:
            return
        if old.ext_id is not None:
            paths = self._definers.get(old.ext_id, [])
            if path in paths:
                paths.remove(path)
        for ref_id in _ref_ids(old):
            self._referrers.get(ref_id, set()).discard(path)


def _cycle_members(index: ManifestIndex, manifest: Manifest) -> set[str]:
    """Paths of the manifests on a ``depends_on`` cycle through ``manifest``."""
    ext_id = manifest.ext_id
    if ext_id is None:
        return set()
    out: set[str] = set()
    for dep in _dependencies(manifest):
        chain = index.dependency_path(dep, ext_id) if dep != ext_id else [ext_id]
        for member in chain or ():
            for other in index.defining(member):
                out.add(other.path or "")
    return out


def affected(index: ManifestIndex, old: Manifest | None, new: Manifest | None) -> frozenset[str]:
    """Paths whose diagnostics may change when ``old`` becomes ``new`` (pure; ``None`` = absent).

    Call it with the index as it is before the change and again after it; the union
    is the set to re-check. Only what other manifests can see matters:

    - its id, whether it provides tools, is an agent or is loaded (enabled, named
      ``manifest.yaml``; its ``Facade``): when that changes, the manifests naming
      the old or new id and the other manifests declaring either id (duplicates);
    - its ``depends_on``: when it changes, the manifests on a cycle through it.
    """
    out: set[str] = set()
    old_face, new_face = facade(old), facade(new)
    if old_face != new_face:
        for face in (old_face, new_face):
            if face is None or face.id is None:
                continue
            out.update(m.path or "" for m in index.referring(face.id))
            out.update(m.path or "" for m in index.defining(face.id))
    if _dependencies(old) != _dependencies(new) or old_face != new_face:
        for manifest in (old, new):
            if manifest is not None:
                out |= _cycle_members(index, manifest)
    return frozenset(out)
