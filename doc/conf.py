"""Sphinx configuration of the skprivate documentation."""

import os
import sys
from pathlib import Path

import skprivate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "skprivate"
copyright = "2026, the skprivate developers"
release = skprivate.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "mathsvg",  # doc/_ext: maths rendered to SVG at build time, no network
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
# Maths is rendered at build time (doc/_ext/mathsvg.py): the pages need neither
# network access nor a LaTeX installation.
html_math_renderer = "mathsvg"
# Signatures show the names written in the code (ArrayLike, NDArray[float64])
# instead of numpy's expansion of them (_Buffer | _SupportsArray[...] | ...).
autodoc_type_aliases = {
    "ArrayLike": "ArrayLike",
    "NDArray": "NDArray",
}
autodoc_typehints_format = "short"
python_use_unqualified_type_names = True
# Inherited members matter (PopulationEstimateMixin gives cdf, quantile, ...),
# but scikit-learn's own plumbing methods are documented by scikit-learn.
autodoc_default_options = {
    "members": True,
    "inherited-members": True,
    "exclude-members": ",".join(
        [
            "set_output",
            "get_metadata_routing",
            "set_fit_request",
            "set_partial_fit_request",
            "set_transform_request",
            "set_score_request",
            "set_predict_request",
            "set_predict_proba_request",
            "set_inverse_transform_request",
        ]
    ),
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

templates_path = ["_templates"]
# sg_execution_times pages (written by earlier builds) load jQuery and
# DataTables from CDNs; the pages must work offline, so they are not built.
exclude_patterns = [
    "_build",
    "generated/*.examples",
    "sg_execution_times.rst",
    "auto_examples/sg_execution_times.rst",
]
html_theme = "pydata_sphinx_theme"
html_title = f"skprivate {release}"

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "scipy": ("https://docs.scipy.org/doc/scipy", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
    "pandas": ("https://pandas.pydata.org/docs", None),
}
# The documentation must build offline (CI machines have no general web access).
if os.environ.get("SKPRIVATE_DOCS_OFFLINE", "1") == "1":
    intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "within_subsection_order": "FileNameSortKey",
    # SKPRIVATE_DOCS_GALLERY=0 builds the pages without running the examples
    # (quick iterations on the text); the published build runs them.
    "plot_gallery": os.environ.get("SKPRIVATE_DOCS_GALLERY", "1") != "0",
    # The execution-times pages load jQuery and DataTables from CDNs: not
    # written (the documentation must work offline).
    "write_computation_times": False,
}


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Leave methods inherited unchanged from scikit-learn to its own docs."""
    module = getattr(obj, "__module__", "") or ""
    if module.startswith("sklearn"):
        return True
    return None


def _copy_benchmark_results(app):
    """Publish benchmarks/results/*.md with the site (linked from reproducing.rst)."""
    import shutil

    target = Path(app.outdir) / "_static" / "results"
    target.mkdir(parents=True, exist_ok=True)
    for path in (ROOT / "benchmarks" / "results").glob("*.md"):
        if not path.name.endswith(".quick.md"):
            shutil.copy(path, target / path.name)


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
    app.connect("builder-inited", _copy_benchmark_results)
