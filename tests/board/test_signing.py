"""Signing you can trust (issue 16 item 3): the signature is bound to the amounts the signer saw,
the proposer cannot sign their own version, the draft's reason is carried into the proposal, and
each signing role sees what awaits it. On SQLite and (EVALBOARD_TEST_PG_URL) PostgreSQL."""

from __future__ import annotations

from datetime import date

import pytest

from board.access import governance as gov
from board.access.auth import User
from board.services import signoff
from board.store import StateError, Store
from evalcore import InputError
from tests.board.test_governance import TABLE, fresh_db_url

NAME = TABLE["name"]
ANALYST = User(username="ana", role="analyst")
BEA = User(username="bea", role="business")
RITA = User(username="rita", role="risk")
OTTO = User(username="otto", role="model_owner")
NO_REPORT = {"reevaluate": lambda ev, a: {}}


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALBOARD_BCRYPT_ROUNDS", "4")
    monkeypatch.delenv(gov.SELF_SIGN_ENV, raising=False)
    for url in fresh_db_url(request.param, tmp_path):
        with Store(url=url, data_dir=tmp_path / "data") as s:
            yield s


def propose(store, actor, amounts, *, label="v2026.Q4", reason="FN cost up: 2026 loss report", draft_reason=None):
    draft = gov.save_draft(store, actor, NAME, dict(amounts), expected_row_version=None, reason=draft_reason)
    return gov.propose_version(
        store,
        actor,
        NAME,
        label=label,
        effective_date=date(2026, 10, 1),
        reason=reason,
        expected_row_version=draft.row_version,
    )


def test_content_hash_is_sha256_of_the_sorted_compact_json():
    # printf '{"a":1,"b":[2,"x"]}' | sha256sum
    expected = "454597f51f0e5988dd7d0864f82e826d91fd43ed815a21bb06cd7181e8547a2f"
    assert gov.content_hash({"b": [2, "x"], "a": 1}) == expected
    assert gov.content_hash({"a": 1, "b": [2, "x"]}) == expected
    assert gov.content_hash({**TABLE, "fn": -30000.0}) != gov.content_hash(TABLE)


# --------------------------------------------------------------------------- content-bound signatures


def test_a_stale_tab_cannot_sign_content_it_never_saw(store):
    v1 = propose(store, ANALYST, {**TABLE, "fn": -30000.0})
    seen = gov.content_hash(store.get_value_table_version(v1.id).amounts)  # Bea's tab draws the review
    # meanwhile: rejected, reopened, FN changed, proposed again under the same label
    gov.reject_version(store, RITA, v1.id, comment="FN needs a source")
    draft = gov.reopen_version(store, ANALYST, v1.id)
    draft = gov.save_draft(store, ANALYST, NAME, {**TABLE, "fn": -45000.0}, expected_row_version=draft.row_version)
    v2 = gov.propose_version(
        store, ANALYST, NAME, label="v2026.Q4", effective_date=date(2026, 10, 1), expected_row_version=draft.row_version
    )
    assert v2.id == v1.id and v2.status == "pending"
    n_audit = len(store.list_audit())
    with pytest.raises(StateError, match=r"changed after your page showed it.*Nothing was signed: reload"):
        signoff.sign_version(store, BEA, v1.id, expected_hash=seen)
    assert store.list_signoffs(v1.id) == [] and len(store.list_audit()) == n_audit
    # after a reload the hash of what is proposed now signs, and the audit keeps that hash
    now = gov.content_hash({**TABLE, "fn": -45000.0})
    out = signoff.sign_version(store, BEA, v1.id, expected_hash=now)
    assert [s.username for s in out.signoffs] == ["bea"]
    entry = store.list_audit()[0]
    assert entry.action == "sign_version" and entry.detail["content_hash"] == now


def test_the_matching_hash_signs_through_to_approval(store):
    v = propose(store, ANALYST, {**TABLE, "fn": -30000.0})
    h = gov.content_hash(v.amounts)
    for actor in (BEA, RITA, OTTO):
        out = signoff.sign_version(store, actor, v.id, expected_hash=h, **NO_REPORT)
    assert out.approved and store.get_value_table_version(v.id).amounts["fn"] == -30000.0


# --------------------------------------------------------------------------- four eyes


def test_the_proposer_cannot_sign_their_own_version(store, monkeypatch):
    monkeypatch.delenv(gov.SELF_SIGN_ENV, raising=False)
    v = propose(store, BEA, TABLE)
    n_audit = len(store.list_audit())
    with pytest.raises(gov.Forbidden, match=r"'bea' proposed version 'v2026.Q4' and cannot also sign it \(four-eyes rule\)"):
        signoff.sign_version(store, BEA, v.id, expected_hash=gov.content_hash(v.amounts))
    assert store.list_signoffs(v.id) == [] and len(store.list_audit()) == n_audit
    # the store checks it too, inside its transaction (a caller that skipped governance)
    with pytest.raises(StateError, match="four-eyes rule"):
        store.add_signoff(v.id, role="business", username="bea", required_roles=gov.SIGNING_ROLES)
    # another business account signs
    other = User(username="bob", role="business")
    assert [s.username for s in signoff.sign_version(store, other, v.id).signoffs] == ["bob"]


def test_the_admin_switch_lets_the_proposer_sign(store, monkeypatch):
    monkeypatch.setenv(gov.SELF_SIGN_ENV, "1")
    v = propose(store, BEA, TABLE)
    out = signoff.sign_version(store, BEA, v.id, expected_hash=gov.content_hash(v.amounts))
    assert [(s.role, s.username) for s in out.signoffs] == [("business", "bea")]


# --------------------------------------------------------------------------- the reason, once


def test_the_drafts_reason_is_carried_into_the_proposal(store):
    why = "FN cost up 36% (2026 fraud-loss report)"
    v = propose(store, ANALYST, {**TABLE, "fn": -30000.0}, draft_reason=why, reason=None)
    assert v.reason == why and store.get_value_table_version(v.id).reason == why
    assert store.list_audit()[0].detail["reason"] == why
    # blank counts as not given; a reason typed at proposal replaces the draft's
    gov.reject_version(store, RITA, v.id, comment="label")
    d = gov.reopen_version(store, ANALYST, v.id)
    again = gov.propose_version(
        store, ANALYST, NAME, label="v2026.Q4", effective_date=date(2026, 10, 1), reason="  ", expected_row_version=d.row_version
    )
    assert again.reason == why


def test_a_proposal_without_any_reason_is_refused(store):
    draft = gov.save_draft(store, ANALYST, NAME, dict(TABLE), expected_row_version=0)
    with pytest.raises(InputError, match="reason must not be empty"):
        gov.propose_version(
            store, ANALYST, NAME, label="v1", effective_date=date(2026, 10, 1), expected_row_version=draft.row_version
        )
    assert store.get_value_table_draft(NAME).status == "draft"


# --------------------------------------------------------------------------- what awaits whom


def test_awaiting_signature_per_role(store):
    assert gov.awaiting_signature(store, BEA) == []
    v = propose(store, BEA, TABLE)
    assert gov.awaiting_signature(store, BEA) == []  # her own proposal
    assert [x.id for x in gov.awaiting_signature(store, RITA)] == [v.id]
    assert [x.id for x in gov.awaiting_signature(store, User(username="bob", role="business"))] == [v.id]
    assert gov.awaiting_signature(store, ANALYST) == [] and gov.awaiting_signature(store, None) == []
    signoff.sign_version(store, RITA, v.id)
    assert gov.awaiting_signature(store, RITA) == []
    assert [x.id for x in gov.awaiting_signature(store, OTTO)] == [v.id]


# --------------------------------------------------------------------------- the review's numbers


def test_amounts_diff_beside_the_version_in_force():
    rows = signoff.amounts_diff({**TABLE, "fn": -30000.0, "confidence": {"tp": 0.8}}, TABLE)
    by = {r["item"]: r for r in rows}
    assert [r["item"] for r in rows] == ["TP", "FP", "FN", "TN"]  # same unit and prevalence: no rows for them
    assert (by["FN"]["in_force"], by["FN"]["proposed"], by["FN"]["change"], by["FN"]["changed"]) == (
        -22000.0,
        -30000.0,
        -8000.0,
        True,
    )
    assert by["TP"]["changed"] and by["TP"]["change"] == 0.0 and by["TP"]["confidence_proposed"] == 0.8
    assert not by["FP"]["changed"] and not by["TN"]["changed"]
    first = signoff.amounts_diff({**TABLE, "unit": "USD"}, None)
    assert all(r["changed"] and r["in_force"] is None for r in first) and first[-1]["item"] == "Production prevalence"
