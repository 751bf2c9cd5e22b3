"""The package's layers: imports run downwards only, and never in a circle.

The imports of every module of ``skprivate`` are read with :mod:`ast`,
function-local imports included, so a dependency cannot hide in a function
body.  The layers, from the ground up (``doc/design.rst`` draws them):

1. ground: ``utils``, ``exceptions``, ``_doc_link``;
2. shared: ``base``, ``distributions``, ``_grid_density``, ``_uncertainty``;
3. families: ``interval``, ``ldp``, ``subset``, ``negative_survey``,
   ``integral``, ``frequency``, and beside them ``datasets`` and ``model_selection``;
4. across families: ``survey``, ``_privacy_report``, ``_planning``;
5. the package face: ``skprivate/__init__.py``;
6. application: ``_app``, ``_cli``, ``__main__``.

A module may import its own layer or a lower one; modules of one layer that
belong to different packages of layer 3 do not import each other.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import skprivate

PACKAGE = Path(skprivate.__file__).resolve().parent

LAYERS = {
    "ground": ("skprivate.utils", "skprivate.exceptions", "skprivate._doc_link"),
    "shared": (
        "skprivate.base",
        "skprivate.distributions",
        "skprivate._grid_density",
        "skprivate._audit",
        "skprivate._uncertainty",
    ),
    "families": (
        "skprivate.interval",
        "skprivate.ldp",
        "skprivate.subset",
        "skprivate.negative_survey",
        "skprivate.integral",
        "skprivate.frequency",
        "skprivate.datasets",
        "skprivate.model_selection",
    ),
    "across families": (
        "skprivate.survey",
        "skprivate._privacy_report",
        "skprivate._planning",
    ),
    "face": ("skprivate",),
    "application": ("skprivate._app", "skprivate._cli", "skprivate.__main__"),
}
ORDER = list(LAYERS)
# skprivate.negative_survey re-exports the comparison mechanisms of
# skprivate.ldp for compatibility: the one import between two families.
SIDEWAYS_ALLOWED = {("skprivate.negative_survey", "skprivate.ldp")}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The deepest module of skprivate that ``name`` lies in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str) -> set[str]:
    """Modules of skprivate that ``module`` imports, anywhere in its code.

    ``from package import name`` imports ``package.name`` when that is a
    module, else ``package`` itself; relative imports are made absolute.
    """
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            if node.level:
                origin = f"{base}.{node.module}" if node.module else base
            else:
                origin = node.module or ""
            targets = [
                f"{origin}.{alias.name}"
                if f"{origin}.{alias.name}" in MODULES
                else origin
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if target == "skprivate" or target.startswith("skprivate."):
                resolved = _resolve(target)
                if resolved and resolved != module:
                    found.add(resolved)
    return found


def layer_of(module: str) -> tuple[int, str]:
    """Layer index and the package of ``module`` that places it."""
    best = None
    for index, (_, prefixes) in enumerate(LAYERS.items()):
        for prefix in prefixes:
            exact = prefix == "skprivate"
            hit = module == prefix or (not exact and module.startswith(prefix + "."))
            if hit and (best is None or len(prefix) > len(best[1])):
                best = (index, prefix)
    if best is None:
        raise AssertionError(
            f"{module} belongs to no layer: place it in LAYERS "
            "(tests/test_layering.py) and in the diagram of doc/design.rst."
        )
    return best


GRAPH = {module: imports(module) for module in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _upward(graph: dict[str, set[str]]) -> list[str]:
    offenders = []
    for module, targets in sorted(graph.items()):
        level, owner = layer_of(module)
        for target in sorted(targets):
            target_level, target_owner = layer_of(target)
            if target_level > level:
                offenders.append(
                    f"{module} ({ORDER[level]}) imports {target} "
                    f"({ORDER[target_level]})"
                )
            elif (
                target_level == level == ORDER.index("families")
                and target_owner != owner
                and (owner, target_owner) not in SIDEWAYS_ALLOWED
            ):
                offenders.append(f"{module} imports another family: {target}")
    return offenders


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_import_cycle():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_import_runs_up_a_layer_or_across_families():
    offenders = _upward(GRAPH)
    assert not offenders, "\n".join(offenders)


def test_the_shared_layer_names_no_family():
    # nothing under utils/ or in base.py names a family, even in a string
    families = ("interval", "ldp", "subset", "negative_survey", "integral")
    names = set()
    for family in families:
        names |= set(getattr(skprivate, family).__all__)
        names |= {f"skprivate.{family}", f"..{family}", f".{family}."}
    files = [*(PACKAGE / "utils").rglob("*.py"), PACKAGE / "base.py"]
    offenders = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for name in sorted(names):
            if name in text:
                offenders.append(f"{path.relative_to(PACKAGE)} names {name}")
    assert not offenders, "\n".join(offenders)


def test_the_scanner_sees_function_local_relative_and_from_imports(tmp_path):
    # an upward import inside a function body, written relatively, is found
    assert "skprivate.utils._dask" in imports("skprivate.base")
    sample = {
        "skprivate.utils.fake": {"skprivate.subset._mechanism"},
        "skprivate.subset._mechanism": {"skprivate.base"},
        "skprivate.base": {"skprivate.utils.fake"},
    }
    assert _cycles(sample) == [
        ["skprivate.base", "skprivate.subset._mechanism", "skprivate.utils.fake"]
    ]
    offenders = _upward(sample)
    assert offenders == [
        "skprivate.utils.fake (ground) imports skprivate.subset._mechanism (families)"
    ]
    code = "def f():\n    from ..subset import _mechanism\n"
    tree = ast.parse(code)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom))
    assert node.level == 2 and node.module == "subset"


def test_families_import_no_other_family_sideways():
    offenders = [o for o in _upward(GRAPH) if "another family" in o]
    assert not offenders, "\n".join(offenders)


def test_no_family_keeps_a_demo_module():
    assert not list(PACKAGE.glob("*/_demo.py"))


@pytest.mark.parametrize("layer", ORDER)
def test_each_layer_is_populated(layer):
    members = defaultdict(list)
    for module in MODULES:
        members[ORDER[layer_of(module)[0]]].append(module)
    assert members[layer], f"layer {layer} has no module"
