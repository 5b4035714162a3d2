"""Value tools: amounts from pairwise judgement (AHP) and how much the decision depends on them (SPEC §2.2)."""

import json
from itertools import combinations

import streamlit as st

from board.app import state, ui
from board.charts import value_tools as cvt
from board.words import fmt
from board.words.glossary import term, terms
from board.words.i18n import t
from evalcore import InputError
from evalcore.ahp import CR_LIMIT, SAATY_SCALE, ahp_amounts, ahp_weights, pairwise_matrix
from evalcore.sensitivity import value_sensitivity

L = state.current_locale()

ITEMS = ("TP", "FP", "FN", "TN")
WORDS = {
    1: t("equal", L),
    2: t("slightly", L),
    3: t("moderately", L),
    4: t("moderately+", L),
    5: t("strongly", L),
    6: t("strongly+", L),
    7: t("very strongly", L),
    8: t("very strongly+", L),
    9: t("extremely", L),
}
PERTURBATION, N_RANDOM, SEED = 0.30, 200, 0
AMOUNT_HELP = terms("tp", "fp", "fn", "tn", locale=L)


def _sensitivity_columns(unit):
    """evalcore.sensitivity's one-at-a-time rows → the screen's columns."""
    money, signed = ui.money_of(unit), ui.money_of(unit, signed=True)
    return {
        "model": ui.Col(t("Model", L)),
        "perturbation": ui.Col(t("Change", L), help=t("Which amount was changed, and by how much.", L)),
        "amount": ui.Col(t("Amount after the change", L), money, AMOUNT_HELP),
        "EV at optimum": ui.Col(t("EV per decision at the best threshold", L), signed, term("ev", L)),
        "ΔEV at optimum": ui.Col(t("Change in that EV", L), signed),
        "t_opt": ui.Col(t("Best threshold", L), fmt.score, term("best_threshold", L)),
        "Δt_opt": ui.Col(t("Move of the best threshold", L), lambda x: fmt.number(x, signed=True)),
        "EV at deployed": ui.Col(t("EV per decision at the deployed threshold", L), signed, term("ev", L)),
    }


table, row_version = state.committed_table()
unit = table.unit
st.title(t("Value tools", L))
st.caption(t("Helpers for the value table “{name}” (money gained per event; costs negative).", L, name=ui.md_text(table.name)))

st.header(t("Amounts from judgement (AHP)", L))
st.caption(
    t(
        "When the amounts are only known qualitatively: for each pair of outcomes, which matters "
        "more to the business and by how much (Saaty's scale: 1 equal, 3 moderately, 5 strongly, 7 "
        "very strongly, 9 extremely). Weights are the principal eigenvector; a consistency ratio CR "
        "above 0.1 means the answers contradict each other.",
        L,
    )
)


def _say(a, b):
    def fmt(v):
        k = round(v if v >= 1 else 1 / v)
        return t("equal", L) if k == 1 else t("{x} {words} more ({k})", L, x=a if v > 1 else b, words=WORDS[k], k=k)

    return fmt


with st.form("vt_tools_ahp_form"):
    st.caption(t("Slide left when the first outcome of the pair matters more, right when the second does.", L))
    cols = st.columns(3)
    judgements = {
        (a, b): cols[k % 3].select_slider(
            t("{a} vs {b}", L, a=a, b=b), options=SAATY_SCALE, value=1.0, format_func=_say(a, b), key=f"vt_tools_pair_{a}_{b}"
        )
        for k, (a, b) in enumerate(combinations(ITEMS, 2))
    }
    c1, c2, c3, c4 = st.columns(4)
    gains = ui.multiselect(c1, t("Gains (the others are costs)", L), ITEMS, default=["TP", "TN"], key="vt_tools_gains")
    mode = c2.radio(
        t("Scale by", L),
        ["anchor", "money per unit weight"],
        format_func={"anchor": t("anchor", L), "money per unit weight": t("money per unit weight", L)}.get,
        key="vt_tools_mode",
        horizontal=True,
    )
    anchor_item = c3.selectbox(t("Anchor outcome", L), ITEMS, index=2, key="vt_tools_anchor_item")
    # no default money scale (issue 16 item 6): weights are shares, never money until the user says
    # how much one outcome is worth; blank or 0 means "not set" and no amounts are proposed
    anchor_amount = c3.number_input(
        t("Anchor amount{x}", L, x=f" ({table.unit})" if table.unit else ""),
        value=None,
        placeholder=t("e.g. -22000: you set it", L),
        key="vt_tools_anchor_amount",
        help=t("The money gained per event of the anchor outcome (a cost negative); the others follow from the weights.", L),
    )
    scale = c4.number_input(
        t("Money per unit weight{x}", L, x=f" ({table.unit})" if table.unit else ""),
        value=None,
        min_value=0.0,
        placeholder=t("you set it", L),
        key="vt_tools_scale",
    )
    st.form_submit_button(t("Compute weights", L))

money_scale = anchor_amount if mode == "anchor" else scale
scale_set = money_scale is not None and money_scale != 0
try:
    res = ahp_weights(pairwise_matrix(judgements, ITEMS), items=ITEMS)
    amounts = (
        ahp_amounts(res, gains=gains, **({"anchor": (anchor_item, anchor_amount)} if mode == "anchor" else {"scale": scale}))
        if scale_set
        else None
    )
except InputError as err:
    ui.show_problems(err, title=t("The judgements cannot be turned into amounts yet", L))
    res = amounts = None

if res is not None:
    cr_text = ui.fmt(res.cr)
    left, right = st.columns([2, 3])
    with left.container(key="vt_tools_ahp_numbers"):
        m1, m2, m3 = st.columns(3)
        m1.metric(
            t("Largest eigenvalue λmax", L),
            ui.fmt(res.lambda_max),
            help=t("4 (the number of outcomes) when the judgements agree perfectly.", L),
        )
        m2.metric(t("Consistency index", L), ui.fmt(res.ci), help=t("(λmax − 4) ÷ 3: how far the answers are from agreeing.", L))
        m3.metric(
            t("Consistency ratio CR", L),
            cr_text,
            help=t(
                "The consistency index ÷ that of random answers; above {cr_limit} the answers contradict each other.",
                L,
                cr_limit=ui.exact(CR_LIMIT),
            ),
        )
        if res.inconsistent:
            (a, b), r = res.worst_pair, res.worst_pair_implied
            more, less, r = (a, b, r) if r >= 1 else (b, a, 1 / r)
            st.warning(
                t(
                    "CR {cr_text} > {cr_limit}: the judgements are inconsistent. Revisit {a} vs {b} first — the "
                    "other answers imply {more} matters about {r}× as much as {less}.",
                    L,
                    cr_text=cr_text,
                    cr_limit=ui.exact(CR_LIMIT),
                    a=a,
                    b=b,
                    more=more,
                    r=ui.fmt(r),
                    less=less,
                )
            )
        else:
            st.success(t("CR {cr_text} ≤ {cr_limit}: consistent enough to use.", L, cr_text=cr_text, cr_limit=ui.exact(CR_LIMIT)))
        for note in res.notes.values():
            st.caption(note)
    ui.plotly_chart(right, cvt.ahp_weights_figure(res, locale=L), key="vt_tools_weights_chart")
    current = {c: float(getattr(table, c.lower())) for c in ITEMS}
    weights = res.weight_of()
    columns = {
        "outcome": ui.Col(t("Outcome", L), help=AMOUNT_HELP),
        "weight": ui.Col(
            t("Weight", L), fmt.share, t("The outcome's share of the importance (the four weights add up to 100%).", L)
        ),
        "role": ui.Col(t("Role", L)),
        "new": ui.Col(t("Proposed amount", L), ui.money_of(unit, signed=True), t("Money gained per event (costs negative).", L)),
        "now": ui.Col(t("Current amount", L), ui.money_of(unit, signed=True), t("The value table's amount now.", L)),
    }
    if amounts is None:
        columns.pop("new")
    ui.show_table(
        st.container(key="vt_tools_amounts"),
        [
            {"outcome": c, "weight": weights[c], "role": "gain" if c in gains else "cost", "now": current[c]}
            | ({} if amounts is None else {"new": amounts[c]})
            for c in ITEMS
        ],
        columns,
    )
    if amounts is None:
        st.info(
            t(
                "These are weights (shares of importance), not money. To turn them into amounts, set the "
                "money scale yourself: the anchor outcome's amount, or the money per unit weight, then "
                "“Compute weights”.",
                L,
            )
        )
    elif st.button(t("Use these amounts", L), key="vt_tools_use", type="primary"):
        sources = {c.lower(): t("AHP pairwise judgement (CR {cr_text})", L, cr_text=cr_text) for c in ITEMS}
        new_table = table.with_amounts(**{c.lower(): v for c, v in amounts.items()}, sources={**table.sources, **sources})
        state.set_committed_table(new_table, row_version)
        st.session_state["vt_tools_used"] = True
        st.rerun()
    if st.session_state.pop("vt_tools_used", False):
        st.success(t("The value table now uses these amounts; every page re-prices with them.", L))
    for w in table.sign_warnings():
        st.warning(w)

st.header(t("Sensitivity of the decision to the amounts", L))
st.caption(
    t(
        "Every amount × (1 ± {perturbation}) one at a time, and {n_random} random tables with every "
        "amount × U({x}, {x2}) independently (seed {seed}). Robust: every model's optimal threshold "
        "moves by less than 0.05 (5% of the score range for raw scores) and the ranking of the "
        "models by EV at their optimum never changes.",
        L,
        perturbation=fmt.share(PERTURBATION, 0),
        n_random=N_RANDOM,
        x=ui.exact(1 - PERTURBATION),
        x2=ui.exact(1 + PERTURBATION),
        seed=SEED,
    )
)
preds = state.current_data()  # the dataset's aggregate: only the counts are used
if preds is None:
    st.info(t("Choose a dataset in the sidebar to test the table against its models.", L))
    st.stop()
models = list(preds.score_kinds)
deployed = {m: state.deployed_threshold(preds, m) for m in models}
run_key = (state.current_dataset_id(), state.table_json(table), json.dumps(deployed, sort_keys=True))
if st.button(
    t(
        "Run the sensitivity check (±{perturbation}, {n_random} random draws)",
        L,
        perturbation=fmt.share(PERTURBATION, 0),
        n_random=N_RANDOM,
    ),
    key="vt_tools_run",
):
    counts = {m: state.counts_for(preds, m) for m in models}
    try:
        st.session_state["vt_tools_sens"] = (
            run_key,
            value_sensitivity(
                counts,
                table,
                score_kinds=preds.score_kinds,
                deployed=deployed,
                perturbation=PERTURBATION,
                n_random=N_RANDOM,
                rng=SEED,
            ),
        )
    except InputError as err:
        ui.show_problems(err, title=t("The sensitivity check cannot run", L))
stored = st.session_state.get("vt_tools_sens")
if stored is None:
    st.stop()
if stored[0] != run_key:
    st.info(t("The dataset, the value table or a deployed threshold changed since the last check: run it again.", L))
    st.stop()
sens = stored[1]
with st.container(key="vt_tools_badge"):
    st.markdown(t(":green-badge[robust]", L) if sens.robust else t(":red-badge[not robust]", L))
    st.markdown("\n".join(f"- {ui.md_text(r)}" for r in sens.reasons))
for m in models:
    c1, c2 = st.columns(2)
    ui.plotly_chart(
        c1, cvt.tornado_figure(sens, m, quantity="ev_opt", unit=unit, lens=state.current_lens()), key=f"vt_tools_tornado_ev_{m}"
    )
    ui.plotly_chart(c2, cvt.tornado_figure(sens, m, quantity="t_opt", locale=L), key=f"vt_tools_tornado_t_{m}")
ui.plotly_chart(st, cvt.draws_figure(sens, locale=L), key="vt_tools_draws")
with st.expander(t("One amount at a time: every number", L)):
    ui.show_table(st, sens.rows(), _sensitivity_columns(unit), key="vt_tools_sens_table")
for note in sens.notes.values():
    st.caption(note)
