"""The demo application sits above the families: no family imports it."""

import ast
from pathlib import Path

import skprivate

PACKAGE = Path(skprivate.__file__).resolve().parent
LIBRARY = (
    "interval",
    "ldp",
    "subset",
    "negative_survey",
    "integral",
    "utils",
    "_grid_density",
)
APP = ("skprivate._app", "skprivate._cli")


def _imports(path: Path):
    """Absolute names of every module imported by ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = node.module or ""
            name = f"{base}.{module}" if node.level else module
            yield name.rstrip(".")
            for alias in node.names:  # from skprivate import _app
                yield f"{name}.{alias.name}".strip(".")


def test_families_and_utils_never_import_the_application():
    offenders = []
    files = [p for sub in LIBRARY for p in (PACKAGE / sub).rglob("*.py")]
    assert len(files) > 20
    for path in files:
        for name in _imports(path):
            if name.startswith(APP):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not offenders, "\n".join(offenders)


def test_import_scanner_resolves_relative_imports():
    # Relative imports (`from ..utils import ...`) come out as absolute names.
    path = PACKAGE / "ldp" / "_laplace.py"
    names = set(_imports(path))
    assert any(n.startswith("skprivate.") for n in names)


def test_no_family_keeps_a_demo_module():
    assert not list(PACKAGE.glob("*/_demo.py"))


FAMILIES = ("interval", "ldp", "subset", "negative_survey", "integral")
# skprivate.negative_survey re-exports the comparison mechanisms of skprivate.ldp
# for compatibility; it is the one import from one family into another.
ALLOWED = {("negative_survey/__init__.py", "skprivate.ldp")}


def test_no_family_imports_another():
    offenders = []
    for family in FAMILIES:
        for path in (PACKAGE / family).rglob("*.py"):
            rel = path.relative_to(PACKAGE).as_posix()
            for name in _imports(path):
                for other in FAMILIES:
                    if other == family:
                        continue
                    module = f"skprivate.{other}"
                    imported = name == module or name.startswith(module + ".")
                    if imported and (rel, module) not in ALLOWED:
                        offenders.append(f"{rel} imports {name}")
    assert not offenders, "\n".join(offenders)
