"""Frequency oracles: agreement with two peer libraries, speed, and subset privacy.

The peers, multi-freq-ldpy and pure-ldp, are not dependencies of skprivate;
install them in the environment that runs the benchmarks (with statsmodels,
which pure-ldp imports, and ``xxhash<3``, whose ``str`` input multi-freq-ldpy's
local hashing passes)::

    pip install multi-freq-ldpy pure-ldp statsmodels "xxhash<3"

Without them the agreement and peer-speed rows say so and the rest runs.

1. **Agreement.**  The same 2,000 education values of Adult (16
   categories) are privatized ``R`` times by each library at epsilon = 1;
   the table gives ``n`` times the summed squared error of each library's
   estimate (mean over replicates, with its standard error), and the
   difference in standard errors.  pure-ldp's estimates are the unbiased
   ones (``normalization=0``), compared with skprivate's
   ``distribution_raw_`` and with the closed-form variance;
   multi-freq-ldpy's ``*_Aggregator_MI`` clips negative estimates and
   renormalises, and skprivate's unbiased estimate is post-processed the
   same way for that comparison.  Hadamard response is compared with
   pure-ldp's high-privacy variant (epsilon <= 1), the same mechanism.
2. **Throughput**: rows per second of privatizing and estimating.
3. **Subset privacy vs the oracles** on Adult race and education: the
   uniform subset design with dummy categories of mass ``alpha`` has the
   exact loss ``epsilon = log((1 - alpha) / alpha)`` (from
   :func:`skprivate.audit`); each oracle is run at that epsilon on the
   whole column and scored by ``n`` times the summed squared error.
"""

from __future__ import annotations

import importlib.util
import time
import warnings

import numpy as np
import pandas as pd

from skprivate import SubsetDistributionEstimator, SubsetUniform, audit
from skprivate.datasets import load_adult
from skprivate.frequency import FrequencyEstimator, FrequencyOracle

from ._common import Section, mean_se

TITLE = "Frequency oracles: peer agreement, speed, subset privacy at equal epsilon"

ORACLES = ["krr", "sue", "oue", "olh", "blh", "hr"]


def _have(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("multi-freq-ldpy", "pure-ldp", "xxhash"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def _education(n: int, seed: int = 0):
    adult = load_adult()
    cats = sorted(adult["education"].unique())
    codes = pd.Index(cats).get_indexer(adult["education"])
    rng = np.random.default_rng(seed)
    return cats, codes[rng.choice(codes.size, size=n, replace=False)]


def _clip_renormalise(raw):
    out = np.clip(raw, 0, None)
    return out / out.sum() if out.sum() > 0 else out


def _ours(kind, k, eps, codes, seed):
    fo = FrequencyOracle(
        kind, epsilon=eps, categories=[list(range(k))], random_state=seed
    )
    X = codes[:, None]
    est = FrequencyEstimator(oracle=fo).fit(fo.fit(X).transform(X))
    return est.distribution_raw_, fo


def _pure_ldp(kind, k, eps, codes):
    from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
    from pure_ldp.frequency_oracles.hadamard_response import (
        HadamardResponseClient,
        HadamardResponseServer,
    )
    from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer
    from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer

    if kind == "krr":
        client, server = DEClient(eps, k), DEServer(eps, k)
    elif kind in ("sue", "oue"):
        oue = kind == "oue"
        client, server = UEClient(eps, k, use_oue=oue), UEServer(eps, k, use_oue=oue)
    elif kind in ("olh", "blh"):
        olh = kind == "olh"
        client = LHClient(eps, k, g=2, use_olh=olh)
        server = LHServer(eps, k, g=2, use_olh=olh)
    else:
        server = HadamardResponseServer(eps, k)
        client = HadamardResponseClient(eps, k, server.get_hash_funcs())
    for v in codes:
        server.aggregate(client.privatise(int(v) + 1))  # items are 1..k
    counts = server.estimate_all(range(1, k + 1), suppress_warnings=True)
    return np.asarray(counts, dtype=float) / codes.size


def _multi_freq(kind, k, eps, codes):
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, UE

    if kind == "krr":
        reports = [GRR.GRR_Client(int(v), k, eps) for v in codes]
        return GRR.GRR_Aggregator_MI(reports, k, eps)
    if kind in ("sue", "oue"):
        opt = kind == "oue"
        reports = [UE.UE_Client(int(v), k, eps, opt) for v in codes]
        return UE.UE_Aggregator_MI(np.asarray(reports), eps, opt)
    opt = kind == "olh"
    reports = [LH.LH_Client(int(v), k, eps, opt) for v in codes]
    return LH.LH_Aggregator_MI(reports, k, eps, opt)


def _agreement(quick: bool) -> Section:
    n, eps = 2000, 1.0
    replicates = 5 if quick else 40
    cats, codes = _education(n)
    k = len(cats)
    truth = np.bincount(codes, minlength=k) / n
    peers = {"pure-ldp": _have("pure_ldp"), "multi-freq-ldpy": _have("multi_freq_ldpy")}
    rows = []
    for kind in ORACLES:
        ours, ours_mi, theirs = [], [], {"pure-ldp": [], "multi-freq-ldpy": []}
        fo = None
        for r in range(replicates):
            raw, fo = _ours(kind, k, eps, codes, seed=r)
            ours.append(n * np.sum((raw - truth) ** 2))
            ours_mi.append(n * np.sum((_clip_renormalise(raw) - truth) ** 2))
            np.random.seed(1000 + r)  # noqa: NPY002 (the peers use numpy's global state)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if peers["pure-ldp"]:
                    est = _pure_ldp(kind, k, eps, codes)
                    theirs["pure-ldp"].append(n * np.sum((est - truth) ** 2))
                if peers["multi-freq-ldpy"] and kind != "hr":
                    est = _multi_freq(kind, k, eps, codes)
                    theirs["multi-freq-ldpy"].append(n * np.sum((est - truth) ** 2))
        closed = n * fo.oracles_[0].variance(truth, n).sum()
        for peer, mine, label in (
            ("pure-ldp", ours, "unbiased"),
            ("multi-freq-ldpy", ours_mi, "clip + renormalise"),
        ):
            m1, s1 = mean_se(mine)
            if not theirs[peer]:
                why = "not installed" if not peers[peer] else "no such oracle"
                rows.append(
                    {
                        "oracle": kind,
                        "peer": peer,
                        "estimate": label,
                        "skprivate n*MSE": m1,
                        "SE": s1,
                        "peer n*MSE": np.nan,
                        "peer SE": np.nan,
                        "z": np.nan,
                        "closed form": closed if label == "unbiased" else np.nan,
                        "agree (|z| < 3)": why,
                    }
                )
                continue
            m2, s2 = mean_se(theirs[peer])
            z = (m2 - m1) / np.hypot(s1, s2)
            rows.append(
                {
                    "oracle": kind,
                    "peer": peer,
                    "estimate": label,
                    "skprivate n*MSE": m1,
                    "SE": s1,
                    "peer n*MSE": m2,
                    "peer SE": s2,
                    "z": z,
                    "closed form": closed if label == "unbiased" else np.nan,
                    "agree (|z| < 3)": "yes" if abs(z) < 3 else "no",
                }
            )
    text = (
        f"Adult education (k = {k}), the same n = {n} values, epsilon = {eps}, "
        f"{replicates} replicates per library. n*MSE is n times the squared error "
        "summed over the categories (mean over replicates, SE its standard "
        "error); z is the difference in standard errors. 'closed form' is n times "
        "the summed closed-form variance of the unbiased estimate at the true "
        "frequencies (skprivate's realised p*, q*; its local hashing uses the exact "
        "collision probability of its hash family). Peers: "
        f"{_versions()}, installed for the benchmark only."
    )
    return Section("Agreement with the peer libraries", text, [pd.DataFrame(rows)])


def _throughput(quick: bool) -> Section:
    cats, codes = _education(20_000 if not quick else 5_000, seed=1)
    k = len(cats)
    rows = []
    for kind in ORACLES:
        _ours(kind, k, 1.0, codes[:50], seed=0)  # warm up, as for the peers
        times = []
        for seed in range(3):
            start = time.perf_counter()
            _ours(kind, k, 1.0, codes, seed=seed)
            times.append(time.perf_counter() - start)
        rate = codes.size / float(np.median(times))
        rows.append({"oracle": kind, "library": "skprivate", "rows/s": rate})
    small = codes[:1000]
    for peer, run in (("pure-ldp", _pure_ldp), ("multi-freq-ldpy", _multi_freq)):
        if not _have(peer.replace("-", "_")):
            continue
        for kind in ORACLES:
            if peer == "multi-freq-ldpy" and kind == "hr":
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run(kind, k, 1.0, small[:50])  # compile (numba) and warm up
                times = []
                for _ in range(3):
                    start = time.perf_counter()
                    run(kind, k, 1.0, small)
                    times.append(time.perf_counter() - start)
            rate = small.size / float(np.median(times))
            rows.append({"oracle": kind, "library": peer, "rows/s": rate})
    table = pd.DataFrame(rows).pivot(index="oracle", columns="library", values="rows/s")
    table = table.reindex(ORACLES).reset_index()
    text = (
        "Rows per second of privatizing one column and estimating its frequencies "
        f"(education, k = {k}, epsilon = 1): skprivate on {codes.size} rows "
        "(vectorized), the peers on 1,000 rows (one Python call per respondent), "
        "each after a warm-up call; the median of three timed runs (wall clock)."
    )
    return Section("Throughput", text, [table])


def _subset_vs_oracles(quick: bool) -> Section:
    adult = load_adult()
    replicates = 3 if quick else 20
    rows = []
    for column in ("race", "education"):
        cats = sorted(adult[column].unique())
        codes = pd.Index(cats).get_indexer(adult[column])
        n, k = codes.size, len(cats)
        truth = np.bincount(codes, minlength=k) / n
        X = codes[:, None]
        for alpha in (0.05, 0.1, 0.2):
            mech = SubsetUniform(categories=[list(range(k))], min_coverage=alpha)
            eps = float(audit(mech.fit(X[:2]))["audited_epsilon"].iloc[0])
            errors: dict[str, list[float]] = {}
            for r in range(replicates):
                mech.set_params(random_state=r)
                A = mech.fit(X).transform(X)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = SubsetDistributionEstimator("mle", design=mech).fit(A)
                errors.setdefault("subset (uniform + dummies, MLE)", []).append(
                    n * np.sum((est.distribution_ - truth) ** 2)
                )
                for kind in ("auto", "krr", "oue", "olh", "hr"):
                    fo = FrequencyOracle(
                        kind, epsilon=eps, categories=[list(range(k))], random_state=r
                    )
                    reports = fo.fit(X).transform(X)
                    for method in ("norm-sub", "ibu"):
                        if method == "ibu" and kind not in ("auto", "krr"):
                            continue
                        f = FrequencyEstimator(oracle=fo, method=method).fit(reports)
                        label = f"{kind} ({method})"
                        if kind == "auto":
                            label = f"auto = {fo.oracles_[0].kind} ({method})"
                        errors.setdefault(label, []).append(
                            n * np.sum((f.distribution_ - truth) ** 2)
                        )
            for label, values in errors.items():
                m, s = mean_se(values)
                rows.append(
                    {
                        "column": f"{column} (k = {k})",
                        "alpha": alpha,
                        "epsilon": eps,
                        "method": label,
                        "n*MSE": m,
                        "SE": s,
                    }
                )
    text = (
        f"Whole Adult columns (n = {len(adult)}), {replicates} replicates. epsilon "
        "is the exact loss of the subset design with dummies of mass alpha "
        "(skprivate.audit), and every oracle runs at that epsilon. n*MSE is n "
        "times the squared error summed over the categories."
    )
    return Section(
        "Subset privacy vs the oracles at equal epsilon", text, [pd.DataFrame(rows)]
    )


def run(quick: bool = False, n_jobs: int = -1) -> list[Section]:
    """Run the three parts; ``n_jobs`` is unused (the peers are sequential)."""
    return [_agreement(quick), _throughput(quick), _subset_vs_oracles(quick)]
