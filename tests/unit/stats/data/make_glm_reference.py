#!/usr/bin/env python3
"""Writes the datasets and statsmodels' reference numbers for tests/unit/stats/glm_test.cpp.

Run once by hand, never at test time (statsmodels is not a test dependency):
    python3 -m venv /tmp/sm && /tmp/sm/bin/pip install statsmodels
    /tmp/sm/bin/python tests/unit/stats/data/make_glm_reference.py
It writes, next to itself:
  glm_outcomes.csv            category,method,y: 6 categories x 4 methods x 40 draws, seeded
  glm_outcomes_separated.csv  the same with every Quantization outcome set to 0 (never solved)
  glm_outcomes_separated_baseline.csv  the same with every Activation (the baseline) outcome 1
  glm_grouped.csv             category,method,successes,trials: glm_outcomes.csv summed into
                              two uneven chunks per cell
  glm_reference.json          statsmodels' fits of each: coefficients, standard errors, z,
                              p-values, deviance, null deviance, log-likelihood, AIC, and the
                              deviance decomposition (null, A, B, A+B; shares; LR tests);
                              and, for the separated sets, the limit fits (the model on the rows
                              that are not separated) that kbx reports
and prints the chi-square and incomplete-gamma values pasted into special_test.cpp.
"""
import json
import os
import sys
import warnings

import numpy as np
import pandas as pd
import scipy
import scipy.special as sp
import scipy.stats as st
import statsmodels
import statsmodels.api as sm
import statsmodels.formula.api as smf

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261202
CATEGORIES = {  # logit of the solve rate, by category (Quantization rarely solved)
    "Activation": 1.2, "Fusion": -0.4, "LinearAlgebra": -0.9,
    "Math": 0.6, "Normalization": 0.1, "Quantization": -2.0,
}
METHODS = {"agent": 0.5, "few_shot": 0.1, "one_shot": 0.0, "refine": 0.3}
DRAWS = 40


def make_outcomes():
    rng = np.random.default_rng(SEED)
    rows = []
    for cat, a in CATEGORIES.items():
        for met, b in METHODS.items():
            p = 1 / (1 + np.exp(-(a + b)))
            for y in rng.binomial(1, p, size=DRAWS):
                rows.append((cat, met, int(y)))
    order = rng.permutation(len(rows))  # rows not sorted by cell: the fit must not rely on it
    return pd.DataFrame([rows[i] for i in order], columns=["category", "method", "y"])


def make_grouped(df):
    """Each cell's draws summed in two chunks of uneven size (so grouping is not one row per cell)."""
    rng = np.random.default_rng(SEED + 1)
    out = []
    for (cat, met), g in df.groupby(["category", "method"], sort=True):
        ys = g["y"].to_numpy()
        cut = int(rng.integers(1, len(ys)))
        for part in (ys[:cut], ys[cut:]):
            out.append((cat, met, int(part.sum()), int(len(part))))
    return pd.DataFrame(out, columns=["category", "method", "successes", "trials"])


def patsy_to_kbx(name):
    """'C(category)[T.Math]' -> 'category[T.Math]' (kbx names a factor without the C())."""
    if name.startswith("C("):
        inner, rest = name[2:].split(")", 1)
        return inner + rest
    return name


def fit(formula, df):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = smf.glm(formula, data=df, family=sm.families.Binomial()).fit()
    return r, [str(w.message) for w in caught]


def describe(r, warned):
    names = [patsy_to_kbx(n) for n in r.params.index]
    return {
        "names": names,
        "params": r.params.tolist(), "bse": r.bse.tolist(),
        "tvalues": r.tvalues.tolist(), "pvalues": r.pvalues.tolist(),
        "deviance": r.deviance, "null_deviance": r.null_deviance,
        "llf": r.llf, "aic": r.aic, "df_model": int(r.df_model), "df_resid": int(r.df_resid),
        "nobs": int(r.nobs), "iterations": int(r.fit_history["iteration"]),
        "converged": bool(r.converged), "warnings": warned,
    }


def limit(df, dropped_category):
    """The limit a separated fit tends to: the same model on the rows that are not separated
    (their deviance tends to 0), fit to a tight tolerance. Only the coefficients that stay finite
    and the deviance are comparable with kbx's."""
    rest = df[df["category"] != dropped_category]
    r = smf.glm("y ~ C(category) + C(method)", data=rest, family=sm.families.Binomial()).fit(tol=1e-14)
    return describe(r, [])


def decomposition(lhs, df):
    fits = {k: fit(f"{lhs} ~ {rhs}", df)[0] for k, rhs in
            {"null": "1", "a": "C(category)", "b": "C(method)", "ab": "C(category) + C(method)"}.items()}
    null = fits["null"].deviance

    def lr(small, big):
        stat = fits[small].deviance - fits[big].deviance
        ddf = int(fits[big].df_model - fits[small].df_model)
        return {"statistic": stat, "df": ddf, "p_value": float(st.chi2.sf(stat, ddf))}

    return {
        "factor_a": "category", "factor_b": "method",
        "deviance": {k: v.deviance for k, v in fits.items()},
        "share": {k: (null - v.deviance) / null for k, v in fits.items() if k != "null"},
        "lr_a_given_b": lr("b", "ab"), "lr_b_given_a": lr("a", "ab"),
    }


def special_values():
    """(a, x, P, Q) for the regularized incomplete gamma, and (x, df, sf) for chi-square."""
    gam = [(a, x, float(sp.gammainc(a, x)), float(sp.gammaincc(a, x)))
           for a in (0.5, 1.0, 1.5, 3.0, 10.0, 50.0, 250.0)
           for x in (1e-3, 0.5, 1.0, 2.5, 9.0, 11.0, 40.0, 60.0, 240.0, 300.0)]
    chi = [(x, k, float(st.chi2.sf(x, k))) for x, k in
           ((0.0, 1), (0.1, 1), (3.841458820694124, 1), (10.0, 3), (7.0, 5), (30.0, 5),
            (100.0, 5), (250.0, 20), (5.0, 1), (123.4, 100))]
    return gam, chi


def main():
    df = make_outcomes()
    sep = df.copy()
    sep.loc[sep["category"] == "Quantization", "y"] = 0
    sep_base = df.copy()
    sep_base.loc[sep_base["category"] == "Activation", "y"] = 1
    grouped = make_grouped(df)
    grouped["failures"] = grouped["trials"] - grouped["successes"]

    df.to_csv(os.path.join(HERE, "glm_outcomes.csv"), index=False)
    sep.to_csv(os.path.join(HERE, "glm_outcomes_separated.csv"), index=False)
    sep_base.to_csv(os.path.join(HERE, "glm_outcomes_separated_baseline.csv"), index=False)
    grouped[["category", "method", "successes", "trials"]].to_csv(
        os.path.join(HERE, "glm_grouped.csv"), index=False)

    rhs = "C(category) + C(method)"
    grouped_lhs = "successes + failures"
    ref = {
        "generator": "tests/unit/stats/data/make_glm_reference.py",
        "versions": {"statsmodels": statsmodels.__version__, "scipy": scipy.__version__,
                     "numpy": np.__version__, "pandas": pd.__version__,
                     "python": sys.version.split()[0]},
        "formula": f"y ~ {rhs}",
        "fits": {
            "outcomes": describe(*fit(f"y ~ {rhs}", df)),
            "separated": describe(*fit(f"y ~ {rhs}", sep)),
            "separated_baseline": describe(*fit(f"y ~ {rhs}", sep_base)),
            "grouped": describe(*fit(f"{grouped_lhs} ~ {rhs}", grouped)),
            "separated_limit": limit(sep, "Quantization"),
            "separated_baseline_limit": limit(sep_base, "Activation"),
        },
        "decomposition": {
            "outcomes": decomposition("y", df),
            "separated": decomposition("y", sep),
            "grouped": decomposition(grouped_lhs, grouped),
        },
    }
    with open(os.path.join(HERE, "glm_reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")

    gam, chi = special_values()
    print("// regularized incomplete gamma: {a, x, P(a, x), Q(a, x)} (scipy.special.gammainc/gammaincc)")
    for a, x, p, q in gam:
        print(f"    {{{a!r}, {x!r}, {p!r}, {q!r}}},")
    print("// chi-square survival: {x, df, sf} (scipy.stats.chi2.sf)")
    for x, k, s in chi:
        print(f"    {{{x!r}, {k}, {s!r}}},")


if __name__ == "__main__":
    main()
