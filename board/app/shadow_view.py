"""The shadow anchor in the app (issue 19 item 3).

A dataset marked (Datasets page; model owner, risk or admin; audited) as the shadow validation set
of a value table is priced with that table: its EV per decision with an interval is the gold
standard; the ratio of the gold standard to the daily values over the days the shadow set covers
is the factor, with its interval (:func:`evalcore.shadow.shadow_anchor`, as the CLI's --shadow).
On the Drift page's value over time a user may apply the rescaling; the statement "scaled ×1.05 by
the shadow set of NAME (CI 1.02–1.08)" then also stands on the board's meta line and in its HTML
export (kept in the session, per dataset and value table).
"""

from __future__ import annotations

import dataclasses
import datetime
import math

import numpy as np
import pandas as pd
import streamlit as st

from board import services
from board.access import governance
from board.app import state, ui
from board.words import fmt
from board.words.i18n import t
from evalcore import InputError

K_APPLY = "drift_vot_shadow_apply"
SCALED_KEY = "shadow_scaled"  # session: (dataset id, table name) -> {"models": {m: factor}, "statement": text}


# --------------------------------------------------------------------------- Datasets page


def datasets_section(store, rec, table_name: str) -> None:
    """Mark or unmark dataset ``rec`` as the shadow validation set of a value table."""
    L = state.current_locale()
    user = state.current_user()
    may = governance.allowed(user, "mark_shadow")
    cur = store.get_dataset_settings(rec.id, governance.SHADOW_KEY) or {}
    active = bool(cur.get("active"))
    with st.expander(t("Shadow validation set", L), expanded=active):
        st.caption(
            t(
                "A held-out set used only for the periodic gold-standard value: it anchors (and, when a user "
                "applies it, rescales) the daily values of the datasets priced with its value table. Set by the "
                "model owner or risk; audited.",
                L,
            )
        )
        if rec.is_aggregate:
            st.info(t("A shadow set needs rows; this dataset is an aggregate.", L))
            return
        if active:
            marked = datetime.date.fromisoformat(cur["marked_on"])
            age = (datetime.date.today() - marked).days
            st.markdown(
                t(
                    "“{name}” is the shadow set of the value table “{table}”, drawn on {date}, reviewed every {n} "
                    "days (marked by {who}).",
                    L,
                    name=ui.md_text(cur["name"]),
                    table=ui.md_text(cur["table"]),
                    date=fmt.date(marked, locale=L),
                    n=fmt.count(cur["review_days"]),
                    who=ui.md_text(cur.get("marked_by", "")),
                )
            )
            if age > int(cur["review_days"]):
                st.warning(stale_words(cur, age, L), icon=":material/history:")
        tables = services.evaluation.active_table_names(store)
        default = cur.get("table") if cur.get("table") in tables else table_name
        with st.form("datasets_shadow_form", border=False):
            c1, c2, c3 = st.columns(3)
            table = c1.selectbox(
                t("Shadow set of the value table", L),
                tables,
                index=tables.index(default) if default in tables else 0,
                key="datasets_shadow_table",
                disabled=not may,
            )
            name = c2.text_input(
                t("Name in statements", L), value=cur.get("name") or rec.name, key="datasets_shadow_name", disabled=not may
            )
            drawn = c3.date_input(
                t("Drawn on", L),
                value=datetime.date.fromisoformat(cur["marked_on"]) if cur.get("marked_on") else datetime.date.today(),
                key="datasets_shadow_date",
                disabled=not may,
            )
            days = st.number_input(
                t("Review period (days; a quarter is 92)", L),
                min_value=1,
                max_value=3660,
                value=int(cur.get("review_days", governance.SHADOW_REVIEW_DAYS)),
                step=1,
                key="datasets_shadow_days",
                disabled=not may,
            )
            mark = st.form_submit_button(
                t("Mark as the shadow set", L) if not active else t("Save the shadow set", L),
                disabled=not may,
                key="datasets_shadow_mark",
            )
        if active:
            unmark = st.button(t("Unmark", L), key="datasets_shadow_unmark", disabled=not may)
        else:
            unmark = False
        if not may:
            st.caption(t("Only the model owner, risk or an admin may mark a shadow set.", L))
        try:
            if mark:
                governance.mark_shadow(store, user, rec.id, table, name=name, marked_on=drawn, review_days=int(days))
                st.session_state.pop(SCALED_KEY, None)
                st.success(
                    t("Marked: “{name}” is the shadow set of “{table}”.", L, name=ui.md_text(name), table=ui.md_text(table))
                )
            elif unmark:
                governance.unmark_shadow(store, user, rec.id)
                st.session_state.pop(SCALED_KEY, None)
                st.success(t("Unmarked: “{name}” is no longer a shadow set.", L, name=ui.md_text(rec.name)))
        except (governance.Forbidden, InputError) as err:
            st.error(t("Not changed: {error}", L, error=ui.error_text(err, L)))


def stale_words(setting: dict, age: int, L: str) -> str:
    return t(
        "The shadow set “{name}” is {age} days old, older than its review period of {n} days: draw a new one.",
        L,
        name=ui.md_text(setting["name"]),
        age=fmt.count(age),
        n=fmt.count(setting["review_days"]),
    )


# --------------------------------------------------------------------------- Drift page


@st.cache_resource(max_entries=4, show_spinner="Pricing the shadow set …")
def _anchors(shadow_id: int, sha: str, key: str, _result, _table, _config, _thresholds, _setting):
    from evalcore.shadow import daily_values, shadow_anchor

    shadow = services.load_predictions(state.store(), shadow_id)
    missing = [m for m in _result.models if m not in shadow.scores]
    if missing:
        raise InputError(
            f"the shadow set has no score for model(s) {missing}; its models are {list(shadow.scores)}. "
            "Upload it with the same model names."
        )
    start = end = None
    if shadow.time is not None:
        days = pd.DatetimeIndex(shadow.time).normalize()
        start, end = days.min(), days.max() + pd.Timedelta(days=1)
    out = {}
    for i, m in enumerate(_result.models):
        ev, n, se = daily_values(_result, m, start, end)
        out[m] = shadow_anchor(
            shadow.y_true,
            shadow.scores[m],
            _table,
            threshold=_thresholds[m],
            daily_ev=ev,
            daily_n=n,
            daily_se=se,
            sample_weight=shadow.sample_weight,
            n_resamples=max(int(_config.n_resamples), 200),
            level=_config.level,
            rng=np.random.SeedSequence([int(_config.seed), 11, i]),
            label=_setting["name"],
            marked_on=_setting["marked_on"],
            review_days=int(_setting["review_days"]),
        )
    return out


def statement(a, L: str) -> str:
    """ "scaled ×1.05 by the shadow set of 2026-Q3 (CI 1.02–1.08)" of one anchor."""
    if math.isfinite(a.factor_low) and math.isfinite(a.factor_high):
        return t(
            "scaled ×{f} by the shadow set of {name} (CI {lo}–{hi})",
            L,
            f=fmt.number(a.factor, 3),
            name=a.label,
            lo=fmt.number(a.factor_low, 3),
            hi=fmt.number(a.factor_high, 3),
        )
    return t("scaled ×{f} by the shadow set of {name}", L, f=fmt.number(a.factor, 3), name=a.label)


def drift_section(result, rec, table, table_name: str, config, thresholds: dict):
    """The shadow anchor under value over time; returns ``result`` rescaled when the user applies it."""
    L = state.current_locale()
    s = state.store()
    sets = [(r, v) for r, v in governance.shadow_sets(s, table_name) if r.id != rec.id]
    key = (rec.id, table_name)
    scaled = st.session_state.setdefault(SCALED_KEY, {})
    if not sets:
        scaled.pop(key, None)
        return result
    srec, setting = sets[0]
    st.markdown("**" + t("Shadow anchor: “{name}”", L, name=ui.md_text(setting["name"])) + "**")
    try:
        anchors = _anchors(
            srec.id,
            srec.sha256,
            repr((rec.id, rec.sha256, state.table_json(table), sorted(thresholds.items()), result.window, setting)),
            result,
            table,
            config,
            thresholds,
            setting,
        )
    except InputError as err:
        ui.show_problems(err, title=t("The shadow anchor cannot be computed", L))
        scaled.pop(key, None)
        return result
    unit = table.unit
    lines = []
    for m, a in anchors.items():
        gold = t(
            "{model}: gold standard {ev} per decision ({lo} to {hi}) on {n} rows",
            L,
            model=m,
            ev=fmt.money(a.gold.estimate, unit, locale=L),
            lo=fmt.money(a.gold.low, unit, locale=L),
            hi=fmt.money(a.gold.high, unit, locale=L),
            n=fmt.count(a.n_shadow),
        )
        if math.isfinite(a.factor):
            fac = t(
                "daily value {daily} over {k} windows; factor ×{f} ({lo}–{hi})",
                L,
                daily=fmt.money(a.daily, unit, locale=L),
                k=fmt.count(a.n_windows),
                f=fmt.number(a.factor, 3),
                lo=fmt.number(a.factor_low, 3),
                hi=fmt.number(a.factor_high, 3),
            )
        else:
            fac = t("no factor: {reason}", L, reason=a.undefined.get("factor", ""))
        lines.append(f"- {gold}; {fac}")
    st.markdown("\n".join(lines))
    age = (datetime.date.today() - datetime.date.fromisoformat(setting["marked_on"])).days
    if age > int(setting["review_days"]):
        st.warning(stale_words(setting, age, L), icon=":material/history:")
    usable = {m: a for m, a in anchors.items() if math.isfinite(a.factor)}
    apply = st.toggle(
        t("Apply the rescaling", L),
        key=K_APPLY,
        disabled=not usable,
        help=t("Multiply each model's window values and bands by its factor (B − A stays unscaled).", L),
    )
    if not (apply and usable):
        scaled.pop(key, None)
        return result
    said = "; ".join((f"{m}: " if len(usable) > 1 else "") + statement(a, L) for m, a in usable.items())
    scaled[key] = {"models": {m: a.factor for m, a in usable.items()}, "statement": said, "lang": L}
    st.info(said, icon=":material/straighten:")
    return rescaled(result, {m: a.factor for m, a in usable.items()})


def rescaled(result, factors: dict):
    """``result`` with each model's window EVs and bands multiplied by its factor."""
    wins = []
    for w in result.windows:
        ev, lo, hi = dict(w.ev), dict(w.ev_low), dict(w.ev_high)
        for m, f in factors.items():
            ev[m], lo[m], hi[m] = ev[m] * f, lo[m] * f, hi[m] * f
        wins.append(dataclasses.replace(w, ev=ev, ev_low=lo, ev_high=hi))
    lines = {}
    for m, d in result.alert_line.items():
        f = factors.get(m, 1.0)
        lines[m] = {**d, **{k: d[k] * f for k in ("line", "mean", "std") if isinstance(d.get(k), float)}}
    return dataclasses.replace(result, windows=tuple(wins), alert_line=lines)


def board_statement(rec, table_name: str) -> str:
    """The statement of the rescaling this session applied to this dataset and value table, or ""."""
    got = (st.session_state.get(SCALED_KEY) or {}).get((rec.id, table_name)) if rec is not None else None
    return got["statement"] if got else ""


def board_factors(rec, table_name: str) -> dict:
    """Model -> factor of the rescaling this session applied to this dataset and value table ({} if none)."""
    got = (st.session_state.get(SCALED_KEY) or {}).get((rec.id, table_name)) if rec is not None else None
    return dict(got["models"]) if got else {}
