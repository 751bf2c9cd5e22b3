"""The page's samplers follow the laws of the Python privatizers.

Every sampler runs 100,000 times per case under Node and in headless
Chromium (the same script the page inlines); the draws are compared with the
exact law that the mechanism spec describes: exact probabilities for the
discrete building blocks and for subsets, chi-square goodness of fit on bins
with exact probabilities for the grids, at interior and boundary values.
The seeded Python privatizers are checked against the same laws, which ties
the page to the package: if a privatizer's law changes, its spec (and these
tests) must follow.  Each comparison fails wrongly with probability
``ALPHA = 1e-5``.
"""

from __future__ import annotations

import json
import math
import subprocess
from fractions import Fraction
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from skprivate import LaplaceLDP, RVNSPerturber, SubsetUniform
from skprivate.ldp import SquareWaveLDP
from skprivate.subset import SubsetDesign, SubsetMechanism
from skprivate.survey import mechanism_spec

from . import _laws as laws
from .conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    chromium_reason,
    node_path,
    skip_or_fail,
)

N = 100_000
Z = stats.norm.isf(laws.ALPHA / 2)
HARNESS = Path(__file__).with_name("harness.js")
SAMPLERS = resources.files("skprivate.survey").joinpath("static", "samplers.js")

CATS5 = ["a", "b", "c", "d", "e"]
PAIRS = np.array(
    [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]]
)


def _privatizers():
    return {
        "laplace": LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]]),
        "square_wave": SquareWaveLDP(epsilon=1.0, bounds=(0, 10)).fit([[0.0]]),
        "rvns": RVNSPerturber(d=2.0, k=2, bounds=(0, 10)).fit([[0.0]]),
        "rvns_paper": RVNSPerturber(d=2.0, k=2, bounds=(0, 10), placement="paper").fit(
            [[0.0]]
        ),
        "subset_uniform": SubsetUniform(categories=[CATS5]).fit([["a"]]),
        "subset_dummies": SubsetUniform(categories=[["x", "y", "z"]]).fit([["x"]]),
        "subset_independent": SubsetMechanism(
            SubsetDesign.independent(PAIRS, [0.3, 0.3, 0.1, 0.1, 0.1, 0.1]),
            categories=[["a", "b", "c", "d"]],
        ).fit([["a"]]),
        "subset_conditional": SubsetMechanism(
            SubsetDesign.conditional(
                np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]]),
                [0.25, 0.25, 0.25, 0.5],
            ),
            categories=[["a", "b", "c"]],
        ).fit([["a"]]),
    }


PRIVATIZERS = _privatizers()
SPECS = {name: mechanism_spec(p) for name, p in PRIVATIZERS.items()}

# (case id, privatizer, value): interior and boundary values.
RELEASES = [
    ("laplace-interior", "laplace", 37.3),
    ("laplace-bound", "laplace", 0.0),
    ("square_wave-interior", "square_wave", 6.1),
    ("square_wave-bound", "square_wave", 10.0),
    ("rvns-interior", "rvns", 5.3),
    ("rvns-bound", "rvns", 0.0),
    ("rvns-near-bound", "rvns", 0.7),
    ("rvns_paper-interior", "rvns_paper", 5.3),
    ("rvns_paper-bound", "rvns_paper", 0.0),
    ("rvns_paper-near-bound", "rvns_paper", 0.7),
    ("subset_uniform-first", "subset_uniform", 0),
    ("subset_uniform-last", "subset_uniform", 4),
    ("subset_dummies", "subset_dummies", 1),
    ("subset_independent", "subset_independent", 2),
    ("subset_conditional", "subset_conditional", 0),
]

# Building blocks with exact laws.
BERNOULLI = [("0", "1"), ("1", "3"), ("1", "1"), ("5", "2"), ("7", "1")]
BLOCKS = [
    ("uniform-3", {"op": "uniformNumber", "m": 3}),
    ("uniform-6", {"op": "uniformNumber", "m": 6}),
    ("uniform-2^32+3", {"op": "uniformNumber", "m": 2**32 + 3}),
    ("uniform-2^53", {"op": "uniformNumber", "m": 2**53}),
    ("uniformBig-3*2^70", {"op": "uniformBig", "m": str(3 * 2**70), "shift": 66}),
    ("geometric-1/2", {"op": "geometricExp", "num": "1", "den": "2"}),
    ("geometric-3/2", {"op": "geometricExp", "num": "3", "den": "2"}),
    ("rounded_laplace-1/2", {"op": "roundedLaplace", "num": "1", "den": "2"}),
    ("discrete_laplace-2/3", {"op": "discreteLaplace", "num": "2", "den": "3"}),
    *(
        (f"bernoulli_exp-{a}/{b}", {"op": "bernoulliExp", "num": a, "den": b})
        for a, b in BERNOULLI
    ),
]


def _jobs() -> list[dict]:
    jobs = [
        {"op": "release", "spec": SPECS[name], "value": value, "n": N}
        for _, name, value in RELEASES
    ]
    return jobs + [{**job, "n": N} for _, job in BLOCKS]


def _by_case(results: list) -> dict:
    ids = [case for case, _, _ in RELEASES] + [case for case, _ in BLOCKS]
    return dict(zip(ids, results))


def _run_node() -> dict:
    node = node_path()
    if node is None:
        skip_or_fail("node is not installed")
    with resources.as_file(SAMPLERS) as samplers:
        out = subprocess.run(
            [node, str(HARNESS), str(samplers)],
            input=json.dumps(_jobs()),
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
    return _by_case(json.loads(out.stdout))


def _run_chromium() -> dict:
    reason = chromium_reason()
    if reason is not None:
        skip_or_fail(reason)
    import tempfile

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = context.new_page()
            page.set_content("<!DOCTYPE html><title>samplers</title>")
            page.add_script_tag(content=SAMPLERS.read_text(encoding="utf-8"))
            page.add_script_tag(content=HARNESS.read_text(encoding="utf-8"))
            assert page.evaluate("typeof Math.random") == "function"
            # one JSON string: Playwright's own serialization of a million
            # numbers would take minutes
            results = json.loads(
                page.evaluate(
                    "jobs => JSON.stringify(runSamplerJobs(SKPrivateSamplers, jobs))",
                    _jobs(),
                )
            )
        finally:
            context.close()
    return _by_case(results)


@pytest.fixture(scope="module")
def node_draws() -> dict:
    return _run_node()


@pytest.fixture(scope="module")
def chromium_draws() -> dict:
    return _run_chromium()


def _python_release(name: str, value, n: int = N, seed: int = 0) -> np.ndarray:
    priv = PRIVATIZERS[name]
    from sklearn.base import clone

    priv = clone(priv).set_params(random_state=seed)
    if name.startswith("subset"):
        cats = np.asarray(priv.categories[0], dtype=object)
        priv.fit(cats[:1, None])
        return priv.transform(np.full((n, 1), cats[value], dtype=object))
    priv.fit([[SPECS[name]["low"]]])
    out = priv.transform(np.full((n, 1), float(value)))
    return out if name.startswith("rvns") else out[:, 0]


# -- the checks, shared by the page (Node, Chromium) and Python ---------------------
def _check_release(name: str, value, outputs) -> None:
    spec = SPECS[name]
    kind = spec["kind"]
    if kind == "laplace":
        idx = laws.laplace_index(spec, outputs)
        edges, probs = laws.laplace_law(spec, value)
        p = laws.chi_square_p(laws.binned_counts(idx, edges), probs)
    elif kind == "square_wave":
        idx = laws.square_wave_index(spec, outputs)
        k = laws.square_wave_k(spec, value)
        near = np.abs(idx - k) <= spec["half_cells"]
        q = laws.square_wave_near(spec)
        assert abs(near.sum() - len(idx) * q) <= Z * math.sqrt(len(idx) * q * (1 - q))
        edges, probs = laws.square_wave_law(spec, value)
        p = laws.chi_square_p(laws.binned_counts(idx, edges), probs)
    elif kind == "rvns":
        reports = np.asarray(outputs, dtype=float)
        idx = laws.rvns_index(spec, reports)
        jx = min(max(laws.rint(value / spec["step"]), spec["ja"]), spec["jb"])
        assert not np.any(idx == jx), "a report equal to the value"
        assert all(laws.rvns_band_free(spec, row) for row in idx[:2000])
        edges, probs = laws.rvns_law(spec, value)
        p = min(
            laws.chi_square_p(laws.binned_counts(idx[:, j], edges), probs)
            for j in range(spec["k"])
        )
        p *= spec["k"]  # Bonferroni over the k report columns
    else:
        law = laws.subset_law(PRIVATIZERS[name], value)
        counts, probs = laws.subset_counts(law, outputs)
        p = laws.chi_square_p(counts, probs)
    assert p > laws.ALPHA, f"{name} at {value}: p = {p:.2e}"


def _check_all(draws: dict) -> None:
    """Every release case and building block; one report of all failures."""
    failures = []
    checks = [
        (case, _check_release, (name, value, draws[case]))
        for case, name, value in RELEASES
    ]
    checks += [
        (f"bernoulli_exp-{a}/{b}", _check_bernoulli_exp, (draws, a, b))
        for a, b in BERNOULLI
    ]
    checks += [(f"uniform-{m}", _check_uniform_small, (draws, m)) for m in (3, 6)]
    checks += [
        ("uniform-large", _check_uniform_large, (draws,)),
        ("geometric-1/2", _check_geometric, (draws, "geometric-1/2", 0.5)),
        ("geometric-3/2", _check_geometric, (draws, "geometric-3/2", 1.5)),
        ("rounded_laplace", _check_rounded_laplace, (draws,)),
        ("discrete_laplace", _check_discrete_laplace, (draws,)),
    ]
    for case, check, args in checks:
        try:
            check(*args)
        except AssertionError as exc:
            failures.append(f"{case}: {exc}")
    assert not failures, "\n".join(failures)


def test_page_samplers_follow_the_mechanism_laws_under_node(node_draws):
    _check_all(node_draws)


def test_page_samplers_follow_the_mechanism_laws_in_chromium(chromium_draws):
    _check_all(chromium_draws)


@pytest.mark.parametrize(
    ("case", "name", "value"), RELEASES, ids=[c for c, *_ in RELEASES]
)
def test_python_privatizer_follows_the_same_law(case, name, value):
    _check_release(name, value, _python_release(name, value))


def _check_bernoulli_exp(draws, num, den):
    """Bern(exp(-num/den)) hits with that probability."""
    hits = draws[f"bernoulli_exp-{num}/{den}"]
    q = math.exp(-int(num) / int(den))
    assert abs(hits - N * q) <= Z * math.sqrt(N * q * (1 - q)) + 1e-9


def _check_uniform_small(draws, m):
    """Small ranges are uniform."""
    values = np.asarray(draws[f"uniform-{m}"])
    assert values.min() >= 0 and values.max() < m
    counts = np.bincount(values, minlength=m)
    assert laws.chi_square_p(counts, np.full(m, 1 / m)) > laws.ALPHA


def _check_uniform_large(draws):
    """Ranges past 2**32 and 2**53 are uniform."""
    for case, m in [("uniform-2^32+3", 2**32 + 3), ("uniform-2^53", 2**53)]:
        values = np.asarray(draws[case], dtype=float)
        assert values.min() >= 0 and values.max() < m
        assert np.all(values == np.floor(values))
        edges = np.linspace(0, m, 17)
        probs = np.diff(edges) / m
        assert laws.chi_square_p(np.histogram(values, edges)[0], probs) > laws.ALPHA
    # 3 * 2**70, shifted down by 66 bits: uniform on {0..47}
    top = np.asarray(draws["uniformBig-3*2^70"])
    counts = np.bincount(top, minlength=48)
    assert counts.size == 48
    assert laws.chi_square_p(counts, np.full(48, 1 / 48)) > laws.ALPHA


def _check_geometric(draws, case, gamma):
    """Geometric of ratio exp(-gamma)."""
    values = np.asarray(draws[case])
    assert values.min() >= 0
    top = int(values.max())
    pmf = (1 - math.exp(-gamma)) * np.exp(-gamma * np.arange(top + 1))
    pmf[-1] += math.exp(-gamma * (top + 1))  # tail into the last bin
    assert laws.chi_square_p(np.bincount(values, minlength=top + 1), pmf) > laws.ALPHA


def _check_rounded_laplace(draws):
    """A Laplace draw rounded to the nearest integer."""
    values = np.asarray(draws["rounded_laplace-1/2"])
    gamma = 0.5
    support = np.arange(values.min(), values.max() + 1)
    cdf = laws._rounded_laplace_cdf(np.append(support - 1, support[-1]), gamma)
    pmf = np.diff(cdf)
    pmf[0] += cdf[0]
    pmf[-1] += 1 - cdf[-1]
    counts = np.bincount(values - values.min(), minlength=support.size)
    assert laws.chi_square_p(counts, pmf) > laws.ALPHA
    # the discrete part, exactly: P(N = 0) = 1 - exp(-gamma / 2)
    q = 1 - math.exp(-gamma / 2)
    assert abs((values == 0).sum() - N * q) <= Z * math.sqrt(N * q * (1 - q))


def _check_discrete_laplace(draws):
    """Mass proportional to exp(-gamma |n|)."""
    values = np.asarray(draws["discrete_laplace-2/3"])
    gamma = 2 / 3
    support = np.arange(values.min(), values.max() + 1)
    weights = np.exp(-gamma * np.abs(support))
    total = (1 + math.exp(-gamma)) / (1 - math.exp(-gamma))
    pmf = weights / total
    pmf[0] += (1 - pmf.sum()) / 2
    pmf[-1] += 1 - pmf.sum()
    counts = np.bincount(values - values.min(), minlength=support.size)
    assert laws.chi_square_p(counts, pmf) > laws.ALPHA


def test_the_page_never_uses_math_random():
    text = SAMPLERS.read_text(encoding="utf-8")
    page = resources.files("skprivate.survey").joinpath("static", "page.js")
    for source in (text, page.read_text(encoding="utf-8")):
        assert "Math.random" not in source
    assert "crypto.getRandomValues" in text


def test_a_wrong_law_is_detected():
    # The checks must fail on a sampler with another law: noise of twice the
    # scale, a Square Wave with the wrong near probability, a uniform band.
    spec = SPECS["laplace"]
    rng = np.random.default_rng(0)
    k = laws.rint(37.3 / spec["step"])
    scale = 1 / float(Fraction(spec["gamma"]))
    wrong = (k + np.rint(rng.laplace(0, 1.3 * scale, N))) * spec["step"]
    with pytest.raises(AssertionError):
        _check_release("laplace", 37.3, wrong)
    sw = SPECS["square_wave"]
    kk = laws.square_wave_k(sw, 6.1)
    n, w = sw["n_cells"], sw["half_cells"]
    near = rng.random(N) < 0.9 * laws.square_wave_near(sw)
    u = rng.integers(0, n, N)
    far = np.where(u < kk, u - w, u + w + 1)
    j = np.where(near, kk - w + rng.integers(0, 2 * w + 1, N), far)
    with pytest.raises(AssertionError):
        _check_release("square_wave", 6.1, sw["low"] + j * sw["step"])
    law = laws.subset_law(PRIVATIZERS["subset_uniform"], 0)
    keys = sorted(law)
    weights = np.r_[1.1, np.ones(len(keys) - 1)]
    biased = [keys[i] for i in rng.choice(len(keys), N, p=weights / weights.sum())]
    with pytest.raises(AssertionError):
        _check_release("subset_uniform", 0, biased)
    # reports of the paper's placement checked against the boundary-safe law
    paper = _python_release("rvns_paper", 0.7)
    with pytest.raises(AssertionError):
        _check_release("rvns", 0.7, paper)
