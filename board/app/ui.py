"""Small rendering helpers shared by pages (Streamlit, no math)."""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

from board.access.governance import Forbidden
from board.app.text import WORD_JOINER, file_stem, html_text, md_text  # noqa: F401 - re-exported for pages
from board.charts._style import plotly_config
from board.export.onepager import plotly_safe
from board.store.errors import ConflictError
from board.words import fmt as words
from board.words.audit import permission_words
from board.words.glossary import term
from board.words.i18n import N_, t, tn
from board.words.patterns import Templates
from board.words.reasons import undefined_reason
from evalcore import InputError
from evalcore.data import default_positive


def _L() -> str:
    """This tab's language (board.app.state.current_locale)."""
    from board.app.state import current_locale

    return current_locale()


def metric_row(key: str):
    """A wrapping row of metric cards (``st.container(horizontal=True)``) whose interval lines
    wrap onto a second line where they do not fit, instead of being cut with "…": a Chinese
    interval is wider than its English one, and a cut interval reads as a different number."""
    st.html(
        f"<style>.st-key-{key} [data-testid='stMetricDelta'] *{{white-space:normal !important;"
        "overflow:visible !important;text-overflow:clip !important}</style>"
    )
    return st.container(horizontal=True, gap="small", key=key)


def _css_string(text: str) -> str:
    """``text`` as a CSS string literal: quotes and backslashes escaped, "<" as its code point (so
    no text can close the <style> element), line breaks as spaces."""
    for a, b in (("\\", "\\\\"), ('"', '\\"'), ("<", "\\3c "), ("\n", " ")):
        text = text.replace(a, b)
    return f'"{text}"'


def file_uploader(where, label: str, *, key: str, type=None, **kwargs):
    """``where.file_uploader`` whose own words are in the reader's language: Streamlit writes its
    button ("Upload") and the limit line ("200MB per file • CSV, TXT") in English whatever the app's
    language. For another language both are drawn over by CSS from the catalogs (the element keeps
    its text for assistive tools), with the limit and the file types this uploader really has."""
    L = _L()
    if L != "en":
        size = int(st.get_option("server.maxUploadSize"))
        kinds = ", ".join(x.upper().lstrip(".") for x in type) if type else t("any file", L)
        limit = t("Drop a file here · at most {size} MB per file · {types}", L, size=words.count(size), types=kinds)
        scope = f".st-key-{key} [data-testid='stFileUploaderDropzone']"
        st.html(
            f"<style>{scope} button [data-testid='stMarkdownContainer'] p,"
            f"{scope} [data-testid='stFileUploaderDropzoneInstructions'] span{{font-size:0 !important}}"
            f"{scope} button [data-testid='stMarkdownContainer'] p::after{{content:{_css_string(t('Choose file', L))};"
            "font-size:0.875rem}"
            f"{scope} [data-testid='stFileUploaderDropzoneInstructions'] span::after{{content:{_css_string(limit)};"
            "font-size:0.75rem}</style>"
        )
    return where.file_uploader(label, type=type, key=key, **kwargs)


def multiselect(where, *args, **kwargs):
    """``where.multiselect`` with its empty-box placeholder in the reader's language (Streamlit's
    own is the English "Choose options")."""
    kwargs.setdefault("placeholder", t("Choose options", _L()))
    return where.multiselect(*args, **kwargs)


def undefined(x) -> bool:
    """Whether a value to display is undefined (None, NaN or ±inf): it shows as an em dash."""
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def fmt(x, digits: int = 3, *, unit: str | None = None, signed: bool = False) -> str:
    """A number for display through :mod:`board.words.fmt`: with ``unit`` (even "") a money figure
    (:func:`~board.words.fmt.money`), else ``digits`` significant digits (3 or 4). Undefined
    (None/NaN/±inf) is an em dash, never 0; never scientific notation."""
    if unit is not None:
        return words.money(x, unit, signed=signed)
    return words.number(x, min(max(int(digits), 3), 4), signed=signed)


def percent(p, digits: int = 1, *, signed: bool = False) -> str:
    """A share as a percentage (:func:`board.words.fmt.share`); undefined is an em dash."""
    return words.share(p, digits, signed=signed)


def level(p: float) -> str:
    """A confidence level as a percentage without needless decimals: 0.95 → "95%", 0.995 → "99.5%"."""
    if words.is_undefined(p):
        return words.DASH
    pct = float(p) * 100
    return words.share(p, 0 if abs(pct - round(pct)) < 1e-9 else 1)


def exact(x) -> str:
    """A setting or a grid step as typed, up to 4 significant digits and no trailing zeros:
    0.5 → "0.5", 1e-4 → "0.0001", 1.3 → "1.3" (never "1e-04")."""
    text = words.number(x, 4)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def cell(x) -> str:
    """A table cell as text: text unchanged, whole numbers as counts, other numbers to 3
    significant digits, undefined as an em dash (never "nan", "None" or a blank); a dict or list
    item by item."""
    if isinstance(x, str):
        return x
    if x is None:
        return words.DASH
    if isinstance(x, (bool, np.bool_)):
        return t("yes", _L()) if x else t("no", _L())
    if isinstance(x, (int, np.integer)):
        return words.count(x)
    if isinstance(x, (float, np.floating)):
        return words.number(x)
    if isinstance(x, dict):
        return ", ".join(f"{k}: {cell(v)}" for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return ", ".join(cell(v) for v in x)
    return str(x)


@dataclasses.dataclass(frozen=True, slots=True)
class Col:
    """How a table column is shown: its plain ``label``, how a value becomes text (``show``; None:
    :func:`cell`) and its one-line tooltip (``help``, e.g. a :mod:`board.words.glossary` term)."""

    label: str
    show: Callable[[object], str] | None = None
    help: str | None = None


def shown_table(data, columns: dict) -> tuple[pd.DataFrame, dict]:
    """A display-only table: ``data`` (a DataFrame or a list of row dicts) with only the
    ``columns`` (name → :class:`Col`), renamed to their labels, every value text through the
    formatter; and the ``column_config`` carrying the tooltips. The numbers themselves (for a
    download, or a test) stay in ``data``."""
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(list(data), columns=list(columns))
    out = pd.DataFrame(index=frame.index)
    config = {}
    for name, col in columns.items():
        show = col.show or cell
        out[col.label] = [show(v) for v in frame[name]] if name in frame else words.DASH
        config[col.label] = st.column_config.TextColumn(col.label, help=col.help)
    return out, config


def show_table(where, data, columns: dict, **kwargs):
    """``where.dataframe`` of :func:`shown_table` (index hidden unless ``hide_index=False``)."""
    frame, config = shown_table(data, columns)
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    return where.dataframe(frame, column_config=config, **kwargs)


def money_of(unit: str, *, signed: bool = False) -> Callable[[object], str]:
    """A cell formatter for money in ``unit``."""
    return lambda x: words.money(x, unit, signed=signed)


def problems_table(err: InputError, locale: str | None = None) -> pd.DataFrame:
    """Every problem of ``err`` as a row (what is wrong, the column, example rows, the fix) in the
    reader's language (``board.words.problems``; the English message when no translation exists)."""
    from board.words.problems import problem_text

    L = locale or _L()
    rows = []
    for p in err.problems:
        message, fix = problem_text(p, L)
        examples = ", ".join(str(r) for r in p.rows)
        if p.n_rows > len(p.rows) and p.rows:
            examples += t(" … ({n} rows in all)", L, n=words.count(p.n_rows))
        rows.append(
            {
                t("Problem", L): message,
                t("Column", L): p.column or "",
                t("Rows (file line numbers)", L): examples,
                t("How to fix", L): fix,
            }
        )
    return pd.DataFrame(rows)


def show_problems(err: InputError, *, title: str | None = None) -> None:
    L = _L()
    n = len(err.problems)
    st.error(
        "**"
        + tn(
            "{title}: {n} problem found.",
            "{title}: {n} problems found.",
            n,
            L,
            title=title or t("The file cannot be used yet", L),
        )
        + "** "
        + t("All are listed; fix them and upload again.", L)
    )
    st.dataframe(problems_table(err, L), hide_index=True, width="stretch")


def show_validation(summary: dict, *, max_levels: int = 8) -> None:
    """The validation report of an upload (:meth:`evalcore.data.Predictions.summary`) in words
    and plain tables: the dataset's facts, one row per model, the segment levels with their rows."""
    L = _L()
    lab = summary["label"]
    facts = [
        (t("Rows", L), words.count(summary["rows"])),
        (t("Positive cases", L), words.count(summary["positives"])),
        (t("Positive rate", L), words.share(summary["positive_rate"], 2)),
        (t("Label column", L), t("{column} (positive value: {value})", L, column=lab["column"], value=lab["positive"])),
    ]
    if summary.get("weighted"):
        w = summary["weighted"]
        facts.append(
            (
                t("Sample weight column", L),
                t(
                    "{column} (total weight {total}, positives {positive})",
                    L,
                    column=w["column"],
                    total=words.number(w["total"], 4),
                    positive=words.number(w["positive"], 4),
                ),
            )
        )
    if summary.get("time"):
        tm = summary["time"]
        facts.append(
            (
                t("Time column", L),
                t(
                    "{column}: {first} to {last} ({days} days)",
                    L,
                    column=tm["column"],
                    first=tm["first"],
                    last=tm["last"],
                    days=words.number(tm["days"]),
                ),
            )
        )
    if summary.get("n_groups") is not None:
        facts.append((t("Groups (e.g. customers)", L), words.count(summary["n_groups"])))
    if summary.get("features"):
        facts.append((t("Features", L), ", ".join(map(str, summary["features"]))))
    if summary.get("dropped_rows"):
        facts.append((t("Rows dropped (missing label)", L), words.count(summary["dropped_rows"])))
    st.dataframe(
        [{t("Fact", L): k, t("Value", L): v} for k, v in facts], hide_index=True, width="stretch", key="validation_facts"
    )
    show_table(
        st,
        [{"model": name, **m} for name, m in summary["models"].items()],
        {
            "model": Col(t("Model", L)),
            "column": Col(t("Score column", L)),
            "kind": Col(
                t("Kind", L),
                lambda k: t(str(k), L),
                help=t("probability: within [0, 1]; score: any number; decision: 0/1.", L),
            ),
            "min": Col(t("Lowest score", L), lambda x: words.number(x, 4)),
            "max": Col(t("Highest score", L), lambda x: words.number(x, 4)),
            "n_distinct": Col(t("Distinct scores", L), words.count),
        },
        key="validation_models",
    )
    if summary.get("segments"):
        rows = []
        seg_col, levels_col = t("Segment column", L), t("Levels (rows)", L)
        for col, levels in summary["segments"].items():
            items = list(levels.items())
            text = " · ".join(f"{k}: {words.count(v)}" for k, v in items[:max_levels])
            if len(items) > max_levels:
                text += t(" · … ({n} more)", L, n=words.count(len(items) - max_levels))
            rows.append({seg_col: col, levels_col: text})
        st.dataframe(
            rows,
            hide_index=True,
            width="stretch",
            key="validation_segments",
            column_config={seg_col: st.column_config.TextColumn(seg_col, help=term("segment", L))},
        )


def undefined_notes(undefined: dict, *, prefix: str = "") -> None:
    """Say why numbers show as —, since a browser shows no Python warnings."""
    L = _L()
    for field, reason in undefined.items():
        st.caption(
            prefix
            + t(
                "{field} is undefined (—): {reason}.",
                L,
                field=t(field.replace("_", " "), L),
                reason=md_text(undefined_reason(reason, L)),
            )
        )


def _idx(options, value):
    return options.index(value) if value in options else 0


def column_roles(cols: list, guess: dict, *, prefix: str, label_values) -> dict | None:
    """The column-role widgets of Upload and Register-a-path (widget keys ``{prefix}_…``).

    ``label_values(column)`` lists a label column's values (it may raise InputError: shown,
    and None is returned). Returns label, positive, score columns with model names and kinds,
    time, group, weight, segments and features.
    """
    from evalcore.data import SCORE_KINDS

    L = _L()
    none = [None] + cols
    st.subheader(t("Column roles", L))
    c1, c2, c3 = st.columns(3)
    label = c1.selectbox(t("Label (outcome)", L), none, index=_idx(none, guess.get("label")), key=f"{prefix}_label")
    score_cols = multiselect(
        c2,
        t("Model score columns (1 or 2)", L),
        cols,
        max_selections=2,
        key=f"{prefix}_scores",
        default=[c for c in guess.get("scores", []) if c in cols][:2],
    )
    positive = None
    if label is not None:
        try:
            values = label_values(label)
        except InputError as err:
            show_problems(err, title=t("The label column cannot be read", L))
            return None
        default_pos = default_positive(values)
        positive = c3.selectbox(
            t("Positive value (the case you act on)", L),
            values,
            index=_idx(values, default_pos),
            key=f"{prefix}_positive",
            help=t("E.g. 1, fraud, default.", L),
        )
    names, kinds = {}, {}
    for i, col in enumerate(score_cols):
        a, b = st.columns(2)
        names[col] = a.text_input(t("Model name for {column}", L, column=md_text(col)), value=col, key=f"{prefix}_name_{i}")
        kinds[col] = b.selectbox(
            t("{column} is a …", L, column=md_text(col)),
            SCORE_KINDS,
            format_func=lambda k: t(k, L),
            key=f"{prefix}_kind_{i}",
            help=t("auto: 0/1 → hard decision; within [0,1] → probability; else raw score.", L),
        )
    d1, d2, d3, d4 = st.columns(4)
    return {
        "label": label,
        "positive": positive,
        "score_cols": score_cols,
        "names": names,
        "kinds": kinds,
        "time": d1.selectbox(t("Time column", L), none, index=_idx(none, guess.get("time")), key=f"{prefix}_time"),
        "group": d2.selectbox(
            t("Group id (e.g. customer)", L), none, index=_idx(none, guess.get("group")), key=f"{prefix}_group"
        ),
        "weight": d3.selectbox(t("Sample weight", L), none, index=_idx(none, guess.get("weight")), key=f"{prefix}_weight"),
        "segments": multiselect(
            d4, t("Segments", L), cols, default=[c for c in guess.get("segments", []) if c in cols], key=f"{prefix}_segments"
        ),
        "features": multiselect(
            st,
            t("Features (for drift)", L),
            cols,
            key=f"{prefix}_features",
            default=[c for c in guess.get("features", []) if c in cols],
        ),
    }


ROLE_WORDS = {
    "viewer": N_("Viewer"),
    "analyst": N_("Analyst"),
    "business": N_("Business"),
    "risk": N_("Risk"),
    "model_owner": N_("Model owner"),
    "admin": N_("Administrator"),
}


VERSION_STATUS_WORDS = {
    "draft": N_("draft"),
    "pending": N_("waiting for sign-off"),
    "approved": N_("approved"),
    "rejected": N_("rejected"),
}


def version_status(status: str, locale: str) -> str:
    """A value-table version's status in the reader's language (an unknown one as it is)."""
    return t(VERSION_STATUS_WORDS[status], locale) if status in VERSION_STATUS_WORDS else status


def role_label(role: str | None, locale: str) -> str:
    """A role's name in the reader's language ("none" for no role)."""
    if not role:
        return t("none", locale)
    return t(ROLE_WORDS[role], locale) if role in ROLE_WORDS else role


def error_text(err: BaseException, locale: str) -> str:
    """An error from the store or the access layer in the reader's words, safe for Markdown: a
    permission refusal of ``governance.require`` names the action and the roles that may do it, a
    draft saved by someone else meanwhile says who and when; any other error is its message."""
    if isinstance(err, Forbidden) and err.action:
        return md_text(
            t(
                "Your role ({role}) may not {what}; that needs one of these roles: {roles}.",
                locale,
                role=role_label(err.role, locale),
                what=permission_words(err.action, locale),
                roles=t(", ", locale).join(role_label(r, locale) for r in err.roles),
            )
        )
    if isinstance(err, ConflictError):
        cur = err.current
        if cur is None:
            return md_text(
                t(
                    "the draft you edited is no longer open (someone proposed or discarded it). "
                    "Nothing of yours was written; reload the table.",
                    locale,
                )
            )
        return md_text(
            t(
                "{author} saved this draft (revision {row_version}) at {when}, after you opened it. "
                "Nothing of yours was written: compare both below, then re-apply or discard your edits.",
                locale,
                author=cur.author or t("someone", locale),
                row_version=cur.row_version,
                when=words.when(cur.updated_at, locale),
            )
        )
    return md_text(str(err))


NO_EXPORT = N_("Downloads need the export permission (analyst, business, risk, model owner or admin); your role is {role}.")


_SERVICE_PARTS = Templates(
    [
        N_("{model} exact (every distinct score)"),
        N_("{model} at score resolution {r} (thresholds are bin lower edges)"),
    ]
)


def _service_value(name: str, value: str, locale: str) -> str:
    if name == "parts":
        return t("; ", locale).join(_SERVICE_PARTS.say(p, locale) for p in value.split("; "))
    return value


#: English notes of board.services shown on pages, said again in the reader's language
_SERVICE_WORDS = Templates(
    [
        N_("From the stored aggregate: {parts}."),
        N_(
            "{model}: the closed-form Bayes threshold t* = {bayes} and the empirical optimum {opt} differ by {gap} "
            "(> {limit}): the scores are probably miscalibrated — check the Calibration page before trusting t*."
        ),
    ],
    values=_service_value,
)


def service_text(text: str, locale: str | None = None) -> str:
    """An English note of ``board.services`` in the reader's language (unchanged when unknown)."""
    return _SERVICE_WORDS.say(text, locale or _L())


def no_export(role: str | None) -> str:
    """Why there is no download for this role, in the reader's language."""
    L = _L()
    return t(NO_EXPORT, L, role=role_label(role, L))


_FAMILY_TITLE = {
    "feature": N_("Feature drift: {color}"),
    "label": N_("Label drift: {color}"),
    "calibration": N_("Calibration drift: {color}"),
}


def drift_light_title(family: str, color: str, locale: str) -> str:
    """ "Feature drift: red" in the reader's language."""
    from board.words.vocab import word

    msg = _FAMILY_TITLE.get(family)
    if msg is None:
        return f"{family} drift: {color}"
    return t(msg, locale, color=word(color, locale))


def export_button(where, label: str, data, *, file_name: str, mime: str, key: str, what: str, detail: dict, **kw) -> None:
    """A download of board data: only for roles with the "export" permission (others see why, and
    no file is handed to their browser: a disabled button would still serve it at its media URL).

    The file is made when it is asked for (a deferred download: ``data`` may be bytes or a callable
    making them), and every delivery writes its ``export`` audit entry right then: no file sits at
    a media URL waiting to be fetched without a click, and a fetch by hand is audited like a click.
    The callable runs outside the script run, so the user and the store are taken now."""
    from board.access import governance
    from board.app import state

    user = state.current_user()
    if not governance.allowed(user, "export"):
        where.caption(f"{label}: " + no_export(None if user is None else user.role))
        return
    store = state.store()

    def deliver():
        governance.record_export(store, user, what, detail)
        return data() if callable(data) else data

    where.download_button(label, deliver, file_name=file_name, mime=mime, key=key, on_click="ignore", **kw)


def accounts_table(users, *, key: str) -> None:
    """The accounts as a table (Accounts and Audit log pages): no password hashes, plain column names."""
    L = _L()
    st.dataframe(
        [
            {
                t("Username", L): u.username,
                t("Role", L): role_label(u.role, L),
                t("Status", L): t("active", L) if u.active else t("disabled", L),
                t("Created (UTC)", L): u.created_at.strftime("%Y-%m-%d %H:%M"),
                t("Password changed (UTC)", L): u.password_changed_at.strftime("%Y-%m-%d %H:%M"),
            }
            for u in users
        ],
        hide_index=True,
        width="stretch",
        key=key,
    )


def preload_charts() -> None:
    """An empty plotly chart out of sight (off-screen, not ``display:none``, so plotly can draw it):
    the tab loads and compiles plotly's JavaScript now, so the next page's charts draw without it."""
    import plotly.graph_objects as go

    st.html(
        "<style>.st-key-eb_preload_charts{position:absolute;left:-10000px;top:0;width:40px;height:40px;overflow:hidden}</style>"
    )
    with st.container(key="eb_preload_charts"):
        fig = go.Figure(layout=dict(width=40, height=40, margin=dict(l=0, r=0, t=0, b=0)))
        st.plotly_chart(fig, key="eb_preload_chart", config={"staticPlot": True, "displayModeBar": False})


def plotly_chart(where, fig, **kwargs):
    """``where.plotly_chart(fig, **kwargs)`` with user text in the figure shown as text (issue 17 F9):
    plotly renders a subset of HTML in titles, legends, ticks and hover text, so a model, segment or
    feature name could otherwise become a link or an image (:func:`board.export.onepager.plotly_safe`)."""
    kwargs["config"] = plotly_config(_L(), **kwargs.get("config", {}))  # dates and modebar in the reader's language
    return where.plotly_chart(plotly_safe(fig), **kwargs)
