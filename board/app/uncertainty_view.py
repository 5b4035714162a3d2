"""Streamlit side of the Uncertainty page (SPEC §3.4): options, cached bootstrap runs, small render helpers.

The numbers all come from :mod:`evalcore.bootstrap`. This module only decides

- which options the user applied (kept in a non-widget session key, so they survive page switches),
- which resampling schemes a dataset offers (rows always; stratified by a mapped segment column;
  clustered by the group id when one is mapped),
- and how runs are cached: by (dataset id, file SHA-256, value-table JSON, thresholds, options),
  never by hashing arrays. The numbers are the board's bootstrap on the dataset's aggregate
  (:func:`board.app.state.board_result` with the page's options): one path for rows and
  registered paths alike. The re-optimising bootstrap (EV(t_opt), t_opt, AUC, the curve band)
  is also kept per model without the thresholds, so the band on the threshold page stays when
  a threshold moves.

Seeds follow the board's streams (:func:`evalcore._seeds.board_seed`: EV at the threshold, the
re-optimising pass and the paired comparison each have their own), so the
page and an export with the same options show the same intervals.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st
from scipy.special import ndtri

from board.app import state, ui
from board.app.lru import BoundedLRU
from board.app.ui import md_text
from board.words import fmt
from board.words.glossary import term
from board.words.i18n import N_, t
from board.words.vocab import word
from evalcore.aggregate import Aggregate
from evalcore.board import MAX_EXACT_SCORES
from evalcore.bootstrap import (
    BootstrapResult,
    Comparison,
    metric_intervals,
)
from evalcore.value import ValueTable


def _L() -> str:
    """This tab's language."""
    return state.current_locale()


OPTIONS_KEY = "unc_options"  # the applied Options (a non-widget key: never cleaned up on a page switch)
K_N, K_METHOD, K_SCHEME, K_SEED, K_LEVEL = "unc_n", "unc_method", "unc_scheme", "unc_seed", "unc_level"
METHODS = {
    "percentile": N_("Percentile"),
    "bca": N_("BCa (bias-corrected, accelerated)"),
    "bayes": N_("Bayesian bootstrap (better with few positives)"),
}
MEASURES = N_(
    "Intervals come from resampling the **test set**: how much each number could move on another sample "
    "of the same size from the same population, for these fixed, already-trained models. They do **not** "
    "measure training randomness (a re-trained model would differ), drift, or errors in the labels or the "
    "value table."
)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Bootstrap options applied on the page (hashable: part of the cache key).

    scheme : "rows", "stratified:<segment column>" or "cluster" (by the mapped group id).
    level : confidence level in (0, 1).
    """

    n_resamples: int = 1000
    method: str = "percentile"
    scheme: str = "rows"
    seed: int = 0
    level: float = 0.95

    @property
    def strata_column(self) -> str | None:
        return self.scheme.split(":", 1)[1] if self.scheme.startswith("stratified:") else None


# --------------------------------------------------------------------------------------
# schemes and options
# --------------------------------------------------------------------------------------


def _group_name(preds) -> str | None:
    """The mapped group id column (the dataset's mapping or stored query), when its per-group cells exist."""
    rec = state.dataset_record()
    if rec is None or preds.group_cells is None:
        return None
    return (rec.mapping or {}).get("group")


def schemes(preds) -> list[str]:
    """The schemes this dataset offers: rows; stratified by each segment column; cluster if a group id is mapped."""
    out = ["rows"] + [f"stratified:{c}" for c in preds.segments]
    if _group_name(preds):
        out.append("cluster")
    return out


def scheme_label(scheme: str, preds) -> str:
    if scheme == "cluster":
        return t("Clustered by {x}", _L(), x=_group_name(preds) or "a group id")
    if scheme.startswith("stratified:"):
        return t("Stratified by {x}", _L(), x=scheme.split(":", 1)[1])
    return t("Rows (independent)", _L())


def scheme_caption(opts: Options, preds: Aggregate) -> str:
    """The sentence that states the scheme used and what it assumes."""
    L = _L()
    group = md_text(_group_name(preds))
    if opts.scheme == "rows":
        how = t("every row is drawn independently with replacement (assumes the rows are independent)", L)
    elif opts.scheme == "cluster":
        how = t(
            "whole groups of {group} are drawn with replacement, so the rows of one {group} move together (use it "
            "when one customer appears many times)",
            L,
            group=group,
        )
    else:
        how = t(
            "rows are drawn with replacement within each level of {column}, so every level keeps its size",
            L,
            column=md_text(opts.strata_column),
        )
    return t(
        "**Resampling scheme: {x}** — {how}. {n_resamples} replicates, {x2} intervals at {level}, seed {seed}.",
        _L(),
        x=md_text(scheme_label(opts.scheme, preds).lower()),
        how=how,
        n_resamples=fmt.count(opts.n_resamples),
        x2="BCa" if opts.method == "bca" else word("percentile", _L()),
        level=ui.level(opts.level),
        seed=opts.seed,
    )


def default_options(preds: Aggregate) -> Options:
    """Defaults: clustered by the group id when one is mapped (repeat customers are not
    independent rows; the board page defaults the same way), else rows."""
    return Options(scheme="cluster" if _group_name(preds) else "rows")


def applied_options(preds: Aggregate) -> tuple[Options, str]:
    """The options last applied in this session (defaults first) and a note when the saved
    scheme is not offered by the current dataset (then rows is used)."""
    opts = st.session_state.get(OPTIONS_KEY) or default_options(preds)
    if opts.scheme not in schemes(preds):
        note = t(
            "{x} is not available on this dataset (no such column mapped): the rows scheme is used.",
            _L(),
            x=md_text(scheme_label(opts.scheme, preds)),
        )
        return dataclasses.replace(opts, scheme="rows"), note
    return opts, ""


def seed_form(opts: Options, preds: Aggregate) -> None:
    """Give the form widgets the applied values when they are first drawn (also after a page
    switch), and reset a scheme choice the current dataset does not offer (after a dataset switch)."""
    values = {
        K_N: opts.n_resamples,
        K_METHOD: opts.method,
        K_SCHEME: opts.scheme,
        K_SEED: opts.seed,
        K_LEVEL: round(opts.level * 100, 3),
    }
    for k, v in values.items():
        if k not in st.session_state or (k == K_SCHEME and st.session_state[k] not in schemes(preds)):
            st.session_state[k] = v


def apply_form() -> None:
    """Submit callback: the form's values become the applied options."""
    s = st.session_state
    st.session_state[OPTIONS_KEY] = Options(
        n_resamples=int(s[K_N]), method=s[K_METHOD], scheme=s[K_SCHEME], seed=int(s[K_SEED]), level=float(s[K_LEVEL]) / 100.0
    )


# --------------------------------------------------------------------------------------
# computation (no Streamlit; cached below)
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Uncertainty:
    """Everything the page shows.

    Attributes
    ----------
    options : Options
    thresholds : dict of str to float
        Deployed threshold per model.
    deployed : dict of str to BootstrapResult
        EV at the deployed threshold. With two models these are the paired comparison's
        ``ev_a``/``ev_b`` (the same draws as the difference, so the page shows one interval
        per quantity); with one model, :func:`~evalcore.bootstrap.ev_interval`.
    comparison : Comparison or None
        B − A when there are two models.
    optimum : dict of str to OptimumBootstrap or None
        The re-optimising pass; None for a hard 0/1 decision (a single operating point).
    """

    options: Options
    thresholds: dict
    deployed: dict
    comparison: Comparison | None
    optimum: dict


def _board_config(preds, thresholds: dict, opts: Options | None):
    """The board settings that give the page's numbers from an aggregate (same seeds as the page)."""
    from evalcore.board import BoardConfig

    drift = state.board_config(preds, thresholds).drift  # the dataset's drift settings: no needless re-aggregation
    if opts is None:
        return BoardConfig(thresholds=dict(thresholds), n_resamples=0, drift=drift)
    return BoardConfig(
        thresholds=dict(thresholds),
        n_resamples=opts.n_resamples,
        method=opts.method,
        seed=opts.seed,
        scheme="stratified" if opts.strata_column else opts.scheme,
        strata_column=opts.strata_column,
        level=opts.level,
        drift=drift,
    )


def analytic_se(preds, table: ValueTable, thresholds: dict) -> dict:
    """Instant standard error of EV at each deployed threshold (assumes independent rows), from
    the cells' per-label weight sums (the board without its bootstrap)."""
    res = state.board_result(preds, table, _board_config(preds, thresholds, None))
    return {m: res.models[m].ev_se for m in preds.score_kinds}


def wilson(curves: dict, thresholds: dict, level: float) -> dict:
    """Wilson intervals of the §3.1 proportions at each deployed threshold."""
    out = {}
    for m, c in curves.items():
        at = c.confusion_at(thresholds[m])
        out[m] = metric_intervals(at.tp, at.fp, at.fn, at.tn, level=level)
    return out


# --------------------------------------------------------------------------------------
# the cache: small keys, shared by sessions, asked without computing (for the band)
# --------------------------------------------------------------------------------------


@st.cache_resource
def _results() -> BoundedLRU:
    return BoundedLRU(48)


def _keys(preds: Aggregate, table: ValueTable, opts: Options) -> tuple:
    rec = state.dataset_record()
    return rec.id, rec.sha256, json.dumps(table.to_dict(), sort_keys=True), opts


def _opt_key(base: tuple, model: str) -> tuple:
    return ("optimum", *base, model)


def _dep_key(base: tuple, thresholds: dict) -> tuple:
    return ("deployed", *base, tuple((m, float(t)) for m, t in thresholds.items()))


def cached(preds: Aggregate, table: ValueTable, thresholds: dict, opts: Options) -> Uncertainty | None:
    """The result for these settings if it has been computed (by any session), else None."""
    base = _keys(preds, table, opts)
    store = _results()
    dep = store.get(_dep_key(base, thresholds))
    opt = {m: store.get(_opt_key(base, m)) for m in preds.score_kinds}
    if dep is None or any(v is None and preds.score_kinds[m] != "decision" for m, v in opt.items()):
        return None
    return Uncertainty(options=opts, thresholds=dict(thresholds), deployed=dep[0], comparison=dep[1], optimum=opt)


def compute(
    preds: Aggregate, table: ValueTable, thresholds: dict, opts: Options, *, progress: Callable[[float, str], None] | None = None
) -> Uncertainty:
    """The board's bootstrap with the page's options (cached per settings by
    :func:`board.app.state.board_result`), kept under the page's keys; ``progress(fraction,
    text)`` is told when it starts."""
    base = _keys(preds, table, opts)
    store = _results()
    if progress is not None:
        progress(0.0, t("Resampling the test set: EV at the deployed thresholds, the re-optimised threshold, AUC", _L()))
    # the board's bootstrap on the cells (same seeds), kept under the page's keys (the band is read from them)
    res = state.board_result(preds, table, _board_config(preds, thresholds, opts))
    optimum = {m: res.models[m].optimum for m in preds.score_kinds}
    for m, o in optimum.items():
        store.put(_opt_key(base, m), o)
    dep = ({m: res.models[m].ev_ci for m in preds.score_kinds}, res.comparison)
    store.put(_dep_key(base, thresholds), dep)
    return Uncertainty(options=opts, thresholds=dict(thresholds), deployed=dep[0], comparison=dep[1], optimum=optimum)


def bands_for(preds: Aggregate, table: ValueTable, models) -> dict | None:
    """``{model: (grid, low, high, level)}`` — the pointwise CI band of EV(t) from the bootstrap the
    Uncertainty page ran with the applied options, for ``charts.value_curve_figure(bands=…)``.

    None when no band has been computed for this dataset, value table and options (the band
    does not depend on the deployed thresholds). Never computes anything.
    """
    opts, _ = applied_options(preds)
    base = _keys(preds, table, opts)
    store = _results()
    out = {}
    for m in models:
        opt = store.get(_opt_key(base, m))
        if opt is not None:
            out[m] = (*opt.band.as_tuple(), opt.band.level)
    return out or None


# --------------------------------------------------------------------------------------
# render helpers
# --------------------------------------------------------------------------------------

VERDICT_BOX = {"better": "success", "worse": "error", "no significant difference": "info", "undefined": "warning"}


def z_value(level: float) -> float:
    """Two-sided normal quantile, e.g. 1.96 for 0.95."""
    return float(ndtri(0.5 + level / 2.0))


def interval_text(r: BootstrapResult, unit: str = "") -> str:
    """ "[low, high]" in money with the unit, or (in the reader's language) that it is undefined."""
    if not (np.isfinite(r.low) and np.isfinite(r.high)):
        return t("undefined: too few replicates with a finite value", _L())
    return f"[{fmt.money(r.low, unit, signed=True)}, {fmt.money(r.high, unit, signed=True)}]"


def _row(quantity: str, kind: str, r, *, analytic: float = float("nan")) -> dict:
    if isinstance(r, BootstrapResult):
        return {
            "quantity": quantity,
            "kind": kind,
            "estimate": r.estimate,
            "low": r.low,
            "high": r.high,
            "bootstrap SE": r.standard_error,
            "analytic SE": analytic,
            "interval": f"{ui.level(r.level)} {r.method}, {r.scheme}",
        }
    return {
        "quantity": quantity,
        "kind": kind,
        "estimate": r.estimate,
        "low": r.low,
        "high": r.high,
        "bootstrap SE": np.nan,
        "analytic SE": analytic,
        "interval": t("{level} Wilson", _L(), level=ui.level(r.level)),
    }


def summary_frame(res: Uncertainty, se: dict, metrics: dict) -> pd.DataFrame:
    """One row per interval on the page (numbers exactly as evalcore returned them); ``kind`` says
    how a row is shown: "money" (EV), "share" (a proportion), "probability" (P(B better)),
    "threshold" or "number" (AUC)."""
    rows = []
    for m, th in res.thresholds.items():
        rows.append(
            _row(t("{m}: EV at deployed threshold {t_}", _L(), m=m, t_=fmt.score(th)), "money", res.deployed[m], analytic=se[m])
        )
    if res.comparison is not None:
        c = res.comparison
        rows.append(_row(t("{b} − {a}: EV difference", _L(), b=c.b, a=c.a), "money", c.diff))
        rows.append(
            {
                "quantity": t("P({b} better)", _L(), b=c.b),
                "kind": "probability",
                "estimate": c.p_b_better,
                "low": np.nan,
                "high": np.nan,
                "bootstrap SE": np.nan,
                "analytic SE": np.nan,
                "interval": t("share of replicates", _L()),
            }
        )
    for m, o in res.optimum.items():
        if o is not None:
            rows.append(_row(t("{m}: EV after re-optimising the threshold", _L(), m=m), "money", o.ev_opt))
            rows.append(_row(t("{m}: best threshold", _L(), m=m), "threshold", o.t_opt))
            rows.append(_row(t("{m}: AUC", _L(), m=m), "number", o.auc))
    for m, mi in metrics.items():
        for name, iv in mi.items():
            rows.append(
                _row(
                    t(
                        "{m}: {name} at the deployed threshold",
                        _L(),
                        m=m,
                        name=t(METRIC_NAMES[name], _L()) if name in METRIC_NAMES else name.replace("_", " "),
                    ),
                    "share",
                    iv,
                )
            )
    return pd.DataFrame(rows)


METRIC_NAMES = {"fpr": N_("false-positive rate"), "positive_rate": N_("share of cases acted on")}


def summary_columns() -> dict:
    """summary_frame's columns → the screen's names and tooltips, in the reader's language."""
    L = _L()
    return {
        "quantity": (t("Quantity", L), None),
        "estimate": (t("Estimate", L), None),
        "low": (t("Low", L), t("The lower end of the confidence interval.", L)),
        "high": (t("High", L), t("The upper end of the confidence interval.", L)),
        "bootstrap SE": (t("Bootstrap standard error", L), term("standard_error", L) + " " + term("bootstrap", L)),
        "analytic SE": (
            t("Analytic standard error", L),
            term("standard_error", L) + t(" From a formula that assumes independent rows.", L),
        ),
        "interval": (t("Interval", L), term("confidence_interval", L)),
    }


def summary_display(frame: pd.DataFrame, unit: str) -> tuple[pd.DataFrame, dict]:
    """:func:`summary_frame` for the screen: every number as text in its row's kind (money with
    the unit, shares as percentages, thresholds, AUC), undefined as —; plain column names; and
    the column_config with the tooltips."""
    shows = {
        "money": lambda x: fmt.money(x, unit, signed=True, locale=_L()),
        "share": fmt.share,
        "probability": fmt.probability,
        "threshold": fmt.score,
        "number": fmt.number,
    }
    spread = {**shows, "money": lambda x: fmt.money(x, unit, locale=_L())}  # a standard error has no sign
    out = pd.DataFrame(index=frame.index)
    columns = summary_columns()
    for c, (label, _) in columns.items():
        if c in ("quantity", "interval"):
            out[label] = frame[c]
        else:
            how = spread if c.endswith("SE") else shows
            out[label] = [how[kind](v) for v, kind in zip(frame[c], frame["kind"])]
    config = {label: st.column_config.TextColumn(label, help=h) for label, h in columns.values()}
    return out, config


def undefined_notes(res: Uncertainty) -> list[str]:
    """Why an interval is missing (a browser shows no Python warnings)."""
    notes = []
    items = [(t("{m}: EV at the deployed threshold", _L(), m=m), r) for m, r in res.deployed.items()]
    if res.comparison is not None:
        items.append((f"{res.comparison.b} − {res.comparison.a}", res.comparison.diff))
    for m, o in res.optimum.items():
        if o is None:
            notes.append(
                t(
                    "{m} is a hard 0/1 decision: it has a single operating point, so there is no threshold to "
                    "re-optimise and no AUC.",
                    _L(),
                    m=m,
                )
            )
        else:
            items += [
                (t("{m}: EV after re-optimising", _L(), m=m), o.ev_opt),
                (t("{m}: best threshold", _L(), m=m), o.t_opt),
                (t("{m}: AUC", _L(), m=m), o.auc),
            ]
            if o.resolution is not None:
                notes.append(
                    t(
                        "{m}: {n_thresholds} distinct scores after binning scores to multiples of {resolution} for "
                        "the re-optimising bootstrap (exact below {max_exact_scores}).",
                        _L(),
                        m=m,
                        n_thresholds=fmt.count(o.n_thresholds),
                        resolution=ui.exact(o.resolution),
                        max_exact_scores=fmt.count(MAX_EXACT_SCORES),
                    )
                )
    for label, r in items:
        for field, why in r.undefined.items():
            notes.append(f"{label}: {field.replace('_', ' ')} — {why}.")
    return notes
