"""Value-table governance: who may do what, version sign-off, audit log.

Every function that changes something takes the acting :class:`board.access.auth.User` first,
checks its role against :data:`PERMISSIONS` and raises :class:`Forbidden` (a
``PermissionError``) before anything is written -- so a page that is hidden from a role
is also refused if its action is called anyway. Successful actions append an audit-log
entry (who, what, when) in the same transaction as the change (the store's ``audit=``
argument): no change without its entry, no entry without its change. No Streamlit here:
pages and the CLI call these functions.

Sign-off: a draft is *proposed* (status ``pending``, with a label such as ``v2026.Q4``, an
effective date and a reason); business, risk and model owner each sign it, each for their
own role; the third signature approves it (the database then refuses any change of that
row). Any of the three may reject it with a comment; the author reopens a rejected version
as the draft, fixes it and proposes it again (the signatures start over). The impact
report of an approval (re-evaluating stored evaluations) is a use case one layer up:
:mod:`board.services.signoff`.
"""

from __future__ import annotations

import os
from datetime import date
from typing import Any

from board.access import auth
from board.access.auth import ROLES, User
from board.store import APPROVED, PENDING, ConflictError, StateError, Store, ValueTableVersionRecord
from board.store.value_tables import content_hash

__all__ = [
    "ACTIONS",
    "PERMISSIONS",
    "SIGNING_ROLES",
    "Forbidden",
    "allowed",
    "SELF_SIGN_ENV",
    "audit_log",
    "add_user",
    "awaiting_signature",
    "change_role",
    "content_hash",
    "create_first_admin",
    "current_version",
    "disable_user",
    "list_users",
    "propose_version",
    "record_evaluation",
    "record_export",
    "reject_version",
    "reopen_version",
    "require",
    "reset_password",
    "save_draft",
    "self_sign_allowed",
    "sign",
    "upload_dataset",
]

SIGNING_ROLES = ("business", "risk", "model_owner")
_EDITORS = frozenset({"analyst", "business", "risk", "model_owner", "admin"})
_ALL = frozenset(ROLES)

#: action -> roles allowed to perform it. Viewing pages needs no more than a login.
PERMISSIONS: dict[str, frozenset[str]] = {
    "edit_draft": _EDITORS,
    "propose_version": _EDITORS,
    "reopen_version": _EDITORS,
    "sign_version": frozenset(SIGNING_ROLES),
    "reject_version": frozenset(SIGNING_ROLES),
    "upload_dataset": frozenset({"analyst", "model_owner", "admin"}),
    "save_evaluation": _EDITORS,
    "export": _EDITORS,
    "use_value_tools": _EDITORS,
    "edit_settings": _EDITORS,  # drift settings saved with a dataset: they change everyone's board
    "manage_users": frozenset({"admin"}),
    "view_audit": frozenset({"admin"}),
    "view_board": _ALL,
    "share_board": frozenset({"admin", "analyst"}),  # read-only meeting links (board.access.meetings)
    # a dataset as the shadow validation set of a value table: its gold standard rescales everyone's
    # daily values (issue 19 item 3), so the model's owners and risk set it
    "mark_shadow": frozenset({"model_owner", "risk", "admin"}),
}
ACTIONS = tuple(PERMISSIONS)


class Forbidden(PermissionError):
    """The acting user's role may not perform this action; nothing was written.

    Raised by :func:`require` with ``action`` (a :data:`PERMISSIONS` key), ``role`` (the user's,
    None when nobody is logged in) and ``roles`` (those allowed, sorted), so a page can say it in
    the reader's language; other refusals carry only their (English) message."""

    def __init__(self, message: str, *, action: str | None = None, role: str | None = None, roles: tuple = ()):
        super().__init__(message)
        self.action, self.role, self.roles = action, role, tuple(roles)


def allowed(user: User | None, action: str) -> bool:
    """Whether ``user`` may perform ``action`` (False for no user or an unknown action)."""
    return user is not None and user.role in PERMISSIONS.get(action, frozenset())


def require(user: User | None, action: str) -> None:
    """Raise :class:`Forbidden` unless ``user`` may perform ``action``."""
    if action not in PERMISSIONS:
        raise KeyError(f"unknown action {action!r}")
    if not allowed(user, action):
        who = "nobody logged in" if user is None else f"{user.username!r} (role {user.role})"
        roles = ", ".join(sorted(PERMISSIONS[action]))
        raise Forbidden(
            f"{action.replace('_', ' ')} is not allowed for {who}; it needs one of: {roles}.",
            action=action,
            role=None if user is None else user.role,
            roles=tuple(sorted(PERMISSIONS[action])),
        )


# --------------------------------------------------------------------------- accounts


_FIRST_ADMIN_TAKEN = "An account exists already; the first-start admin can only be created on an empty store."


def create_first_admin(store: Store, username: str, password: str) -> User:
    """Create the admin account on a first start; ``Forbidden`` once any account exists.

    Atomic: of parallel first starts exactly one creates the admin (the store inserts a singleton
    row with the account); the others get ``Forbidden``.
    """
    if store.count_users() > 0:  # cheap early answer; the store checks again, atomically
        raise Forbidden(_FIRST_ADMIN_TAKEN)
    name = username.strip()
    try:
        rec = store.create_first_admin(name, auth.hash_password(password), audit=(name, "create_first_admin", name))
    except StateError:
        raise Forbidden(_FIRST_ADMIN_TAKEN) from None
    return User(username=rec.username, role=rec.role)


def _check_role(role: str) -> None:
    if role not in ROLES:
        from evalcore._errors import InputError

        raise InputError(f"unknown role {role!r}; choose one of: {', '.join(ROLES)}.")


def add_user(store: Store, actor: User, username: str, password: str, role: str):
    """Add an account (admins only). Returns the ``UserRecord`` (hash never shown)."""
    require(actor, "manage_users")
    _check_role(role)
    name = username.strip()
    return store.create_user(name, auth.hash_password(password), role, audit=(actor.username, "add_user", name, {"role": role}))


def list_users(store: Store, actor: User):
    """All accounts (admins only)."""
    require(actor, "manage_users")
    return store.list_users()


def disable_user(store: Store, actor: User, username: str, *, active: bool = False):
    """Disable (or re-enable) an account (admins only). An admin cannot disable itself.

    Disabling also revokes all the account's login sessions, in the same transaction (audited as
    ``revoke_sessions`` when any were open): its browsers are logged out at their next click or reload.
    """
    require(actor, "manage_users")
    if username == actor.username and not active:
        raise Forbidden("An admin cannot disable its own account.")
    try:
        return store.update_user(
            username,
            active=active,
            keep_an_admin=True,
            audit=(actor.username, "disable_user" if not active else "enable_user", username),
        )
    except StateError as err:  # checked again inside the transaction: two admins at once
        raise Forbidden(str(err)) from None


def reset_password(store: Store, actor: User, username: str, password: str):
    """Set a new password for an account (admins only); its failed-login count is cleared and
    all its login sessions are revoked, in the same transaction (audited as ``revoke_sessions``)."""
    require(actor, "manage_users")
    return store.update_user(
        username, password_hash=auth.hash_password(password), audit=(actor.username, "reset_password", username)
    )


def change_role(store: Store, actor: User, username: str, role: str):
    """Give an account another role (admins only), audited with the old and the new role.

    Refused (``Forbidden``, nothing written) for the actor's own account and for the last active
    admin, so that the store always keeps an admin who can manage accounts. A new role revokes all
    the account's login sessions in the same transaction (audited as ``revoke_sessions``).
    """
    require(actor, "manage_users")
    _check_role(role)
    if username == actor.username:
        raise Forbidden("An admin cannot change its own role; another admin can.")
    target = store.get_user(username)
    if target is not None and target.role == "admin" and role != "admin" and target.active:
        admins = [u for u in store.list_users() if u.role == "admin" and u.active]
        if len(admins) <= 1:
            raise Forbidden(f"{username!r} is the last active admin; make another account admin first.")
    old = None if target is None else target.role
    try:
        return store.update_user(
            username, role=role, keep_an_admin=True, audit=(actor.username, "change_role", username, {"from": old, "to": role})
        )
    except StateError as err:  # the check above, again inside the transaction: two admins at once
        raise Forbidden(str(err)) from None


# --------------------------------------------------------------------------- versions


def current_version(store: Store, name: str) -> ValueTableVersionRecord | None:
    """The version evaluations should use: the latest approved one, else the open draft."""
    return store.latest_approved_version(name) or store.get_value_table_draft(name)


def save_draft(
    store: Store, actor: User, name: str, amounts: dict, *, expected_row_version: int | None, reason: str | None = None
) -> ValueTableVersionRecord:
    """Save the open draft with optimistic locking (``ConflictError`` shows the other's change)."""
    require(actor, "edit_draft")
    return store.save_value_table_draft(
        name,
        amounts,
        author=actor.username,
        reason=reason,
        expected_row_version=expected_row_version,
        audit=lambda rec: (
            actor.username,
            "edit_draft",
            name,
            {"version_id": rec.id, "row_version": rec.row_version, "amounts": amounts},
        ),
    )


def propose_version(
    store: Store,
    actor: User,
    name: str,
    *,
    label: str,
    effective_date: date,
    reason: str | None = None,
    expected_row_version: int,
) -> ValueTableVersionRecord:
    """Propose the open draft for sign-off (status ``pending``); the actor becomes its proposer,
    who may not sign it (:func:`sign`). ``reason`` None or blank carries the draft's own reason."""
    require(actor, "propose_version")
    return store.submit_value_table_draft(
        name,
        label=label,
        effective_date=effective_date,
        reason=reason,
        author=actor.username,
        expected_row_version=expected_row_version,
        audit=lambda rec: (
            actor.username,
            "propose_version",
            name,
            {"version_id": rec.id, "label": label, "reason": rec.reason, "content_hash": content_hash(rec.amounts)},
        ),
    )


#: Set to 1 to let the proposer of a version also sign it (a demo with one account per role).
SELF_SIGN_ENV = "EVALBOARD_ALLOW_SELF_SIGN"


def self_sign_allowed() -> bool:
    """Whether the four-eyes rule is relaxed (``EVALBOARD_ALLOW_SELF_SIGN=1``; off by default)."""
    return os.environ.get(SELF_SIGN_ENV, "").strip().lower() in {"1", "true", "yes"}


def _may_sign(actor: User, version: ValueTableVersionRecord) -> bool:
    return actor.username != version.author or self_sign_allowed()


def sign(store: Store, actor: User, version_id: int, *, comment: str = "", expected_hash: str | None = None):
    """Sign a pending version for the actor's role; the third role's signature approves it.

    ``expected_hash`` is :func:`content_hash` of the amounts the signer was shown: the store
    refuses the signature (``StateError``, nothing written) when the version's amounts differ
    now. The proposer cannot sign their own version (``Forbidden``; see :data:`SELF_SIGN_ENV`).

    Returns ``(version, signoffs)``; both the signature (with the hash signed) and an approval
    are audited. The impact report of an approval is a use case above this layer:
    :func:`board.services.signoff.sign_version`.
    """
    require(actor, "sign_version")
    version = store.get_value_table_version(version_id)
    if version.status == PENDING and not _may_sign(actor, version):
        raise Forbidden(
            f"{actor.username!r} proposed version {version.label!r} and cannot also sign it (four-eyes rule); "
            f"another {actor.role} account must sign."
        )

    def audit(version: ValueTableVersionRecord) -> list[tuple]:
        entries = [
            (
                actor.username,
                "sign_version",
                version.table_name,
                {
                    "version_id": version_id,
                    "label": version.label,
                    "role": actor.role,
                    "content_hash": content_hash(version.amounts),
                },
            )
        ]
        if version.status == APPROVED:
            entries.append(
                (actor.username, "approve_version", version.table_name, {"version_id": version_id, "label": version.label})
            )
        return entries

    return store.add_signoff(
        version_id,
        role=actor.role,
        username=actor.username,
        comment=comment,
        required_roles=SIGNING_ROLES,
        expected_hash=expected_hash,
        proposer_may_sign=self_sign_allowed(),
        audit=audit,
    )


def awaiting_signature(store: Store, actor: User | None) -> list[ValueTableVersionRecord]:
    """The pending versions (of every value table) waiting for the actor's role to sign, that
    the actor may sign (not their own proposal); [] for a role that does not sign."""
    if not allowed(actor, "sign_version"):
        return []
    out = []
    for name in store.list_value_tables():
        for v in store.list_value_table_versions(name):
            if v.status != PENDING or not _may_sign(actor, v):
                continue
            if actor.role not in {s.role for s in store.list_signoffs(v.id)}:
                out.append(v)
    return out


def reject_version(store: Store, actor: User, version_id: int, *, comment: str) -> ValueTableVersionRecord:
    """Reject a pending version with a comment (business, risk or model owner)."""
    require(actor, "reject_version")
    return store.reject_version(
        version_id,
        comment=comment,
        audit=lambda rec: (
            actor.username,
            "reject_version",
            rec.table_name,
            {"version_id": version_id, "label": rec.label, "role": actor.role, "comment": comment},
        ),
    )


def reopen_version(store: Store, actor: User, version_id: int) -> ValueTableVersionRecord:
    """Reopen a rejected version as the draft, to fix and propose it again."""
    require(actor, "reopen_version")
    return store.reopen_version(
        version_id,
        author=actor.username,
        audit=lambda rec: (actor.username, "reopen_version", rec.table_name, {"version_id": version_id}),
    )


# --------------------------------------------------------------------------- audited actions of other pages


def _upload_entry(actor: User, dataset) -> tuple:
    return (
        actor.username,
        "upload_dataset",
        getattr(dataset, "name", str(dataset)),
        {"dataset_id": getattr(dataset, "id", None), "sha256": getattr(dataset, "sha256", None)},
    )


def upload_dataset(store: Store, actor: User, *, name: str, filename: str, raw: bytes, mapping: dict, report: dict, n_rows: int):
    """Store an uploaded file (``store.save_dataset``) and its audit entry in one transaction.

    Returns the ``DatasetRecord``; ``Forbidden`` (nothing stored) unless the role may upload.
    """
    require(actor, "upload_dataset")
    return store.save_dataset(
        name=name,
        filename=filename,
        raw=raw,
        mapping=mapping,
        report=report,
        n_rows=n_rows,
        uploader=actor.username,
        audit=lambda rec: _upload_entry(actor, rec),
    )


def set_table_display(store: Store, actor: User, table_name: str, display: str) -> None:
    """Show value table ``table_name``'s boards as expected "value" or expected "loss" for
    everyone who has not chosen for themselves (an editor's change, audited)."""
    require(actor, "edit_draft")
    store.set_value_table_display(
        table_name, display, audit=(actor.username, "set_table_display", table_name, {"display": display})
    )


def set_own_display(store: Store, actor: User, display: str | None) -> None:
    """A user's own loss/value choice over every value table's (None: follow the table). Anyone
    logged in may choose for themselves; audited like every setting."""
    require(actor, "view_board")
    store.set_user_display(
        actor.username, display, audit=(actor.username, "set_own_display", actor.username, {"display": display})
    )


def set_own_language(store: Store, actor: User, language: str | None) -> None:
    """A user's own language ("en", "zh_CN"; None: the deployment's default). Anyone logged in
    may choose for themselves; audited like every setting."""
    require(actor, "view_board")
    store.set_user_language(
        actor.username, language, audit=(actor.username, "set_own_language", actor.username, {"language": language})
    )


def record_export(store: Store, actor: User, what: str, detail: dict | None = None) -> None:
    """Check the role for an export (HTML/PDF/PNG/CSV) and log it."""
    require(actor, "export")
    store.append_audit(actor.username, "export", what, detail or {})


_CURRENT = object()


def record_evaluation(
    store: Store,
    actor: User,
    dataset_id: int,
    *,
    table_name: str,
    models: Any,
    config: Any,
    result: dict,
    version: ValueTableVersionRecord | None = _CURRENT,
    export_html: str | None = None,
) -> int:
    """Store an evaluation and its audit entry (one transaction) with the value-table version it
    used: ``version`` (the board page passes the one it priced with; None for unsaved amounts),
    by default the current one of ``table_name``; ``export_html`` keeps the board's HTML export
    with it (a snapshot keeps its export)."""
    require(actor, "save_evaluation")
    return store.save_evaluation(
        dataset_id,
        **_snapshot(
            store, actor, table_name, models=models, config=config, result=result, version=version, export_html=export_html
        ),
    )


def _snapshot(store: Store, actor: User, table_name: str, *, models, config, result: dict, version, export_html) -> dict:
    """The keyword arguments of ``Store.save_evaluation`` for a snapshot, its audit entry included."""
    if version is _CURRENT:
        version = current_version(store, table_name)
    vid = None if version is None else version.id
    label = None if version is None else (version.label if version.status == APPROVED else f"draft r{version.row_version}")
    label = result.get("table_version") or label
    return dict(
        models=models,
        config=config,
        result={**result, "table_version": label},
        value_table_version_id=vid,
        export_html=export_html,
        audit=lambda ev_id: (
            actor.username,
            "save_evaluation",
            table_name,
            {"evaluation_id": ev_id, "version_id": vid, "table_version": label},
        ),
    )


def audit_log(store: Store, actor: User, *, limit: int = 1000):
    """The audit log, newest first (admins only)."""
    require(actor, "view_audit")
    return store.list_audit(limit=limit)


__all__ += ["ConflictError"]


# --------------------------------------------------------------------------- several value tables (issue 16 item 1)


def create_table(store: Store, actor: User, name: str, amounts: dict, *, reason: str = "") -> ValueTableVersionRecord:
    """Create value table ``name`` whose first draft holds ``amounts`` (editors; audited). The
    amounts are checked as the editor checks them (``ValueTable.from_dict``: every problem at
    once) and stored under the new name; the table starts as a draft, never approved."""
    from evalcore import ValueTable

    require(actor, "edit_draft")
    table = ValueTable.from_dict({**amounts, "name": (name or "").strip()})
    name = table.name
    return store.create_value_table(
        name,
        table.to_dict(),
        author=actor.username,
        reason=reason,
        audit=lambda rec: (actor.username, "create_table", name, {"version_id": rec.id, "amounts": table.to_dict()}),
    )


def clone_table(store: Store, actor: User, source: str, name: str, *, reason: str = "") -> ValueTableVersionRecord:
    """Create value table ``name`` from the current amounts of ``source`` (its latest approved
    version, else its open draft); the clone is a draft (editors; audited with its source)."""
    require(actor, "edit_draft")
    from_version = current_version(store, source)
    if from_version is None:
        from board.store import NotFoundError

        raise NotFoundError(f"Value table {source!r} has no approved version or draft to clone.")
    from evalcore import ValueTable

    table = ValueTable.from_dict({**from_version.amounts, "name": (name or "").strip()})
    return store.create_value_table(
        table.name,
        table.to_dict(),
        author=actor.username,
        reason=reason or f"cloned from {source!r} ({from_version.label})",
        audit=lambda rec: (
            actor.username,
            "clone_table",
            table.name,
            {"version_id": rec.id, "source": source, "source_version_id": from_version.id},
        ),
    )


def archive_table(store: Store, actor: User, name: str, *, archived: bool = True):
    """Archive value table ``name`` (hidden from selectors, kept for history) or restore it
    (editors; audited)."""
    require(actor, "edit_draft")
    return store.set_value_table_archived(
        name, archived, audit=(actor.username, "archive_table" if archived else "restore_table", name, {})
    )


def rename_table(store: Store, actor: User, name: str, new_name: str, *, default: bool = False):
    """Rename value table ``name`` to ``new_name`` with its bindings and meeting links, in one
    transaction (editors; audited with the old name). ``default``: ``name`` is the table datasets
    never bound are priced with, so they are bound to it under its new name."""
    require(actor, "edit_draft")
    return store.rename_value_table(
        name,
        new_name,
        bind_unbound=default,
        audit=lambda info: (actor.username, "rename_table", info.name, {"from": name, "to": info.name}),
    )


def bind_table(store: Store, actor: User, dataset_id: int, name: str | None) -> None:
    """Price dataset ``dataset_id`` with value table ``name`` (None: the default table): it changes
    everyone's board of that dataset, so it is a setting (editors; audited with the old binding)."""
    require(actor, "edit_settings")
    old = store.get_dataset_value_table(dataset_id)
    store.set_dataset_value_table(
        dataset_id, name, audit=(actor.username, "bind_value_table", str(dataset_id), {"from": old, "to": name})
    )


__all__ += ["archive_table", "bind_table", "clone_table", "create_table", "rename_table"]


def record_decision(
    store: Store,
    actor: User,
    dataset_id: int,
    *,
    table_name: str,
    table_version: str,
    kind: str,
    model: str,
    thresholds: dict,
    rationale: str,
    present: list[str],
    snapshot: dict,
):
    """Record the meeting's decision (issue 16 item 5) with a snapshot of the board it was taken on.

    ``snapshot``: the keyword arguments of :func:`record_evaluation` for the board (``models``,
    ``config``, ``result``, ``version``, ``export_html``). The snapshot (audited ``save_evaluation``)
    and the decision (audited ``record_decision``) are stored in one transaction: both or neither;
    the database refuses to change the decision afterwards.
    Returns the ``DecisionRecord``; ``Forbidden`` (nothing stored) unless the role may save boards.
    """
    from board.store.decisions import check_decision

    require(actor, "save_evaluation")
    check_decision(
        kind=kind,
        model=model,
        thresholds=thresholds,
        rationale=rationale,
        present=present,
        decided_by=actor.username,
        table_name=table_name,
        table_version=table_version,
    )
    return store.record_decision(
        dataset_id=dataset_id,
        table_name=table_name,
        table_version=table_version,
        kind=kind,
        model=model,
        thresholds=thresholds,
        rationale=rationale,
        present=present,
        decided_by=actor.username,
        snapshot=_snapshot(store, actor, table_name, **{"version": _CURRENT, "export_html": None, **snapshot}),
        audit=lambda rec: (
            actor.username,
            "record_decision",
            table_name,
            {
                "decision_id": rec.id,
                "kind": rec.kind,
                "model": rec.model,
                "evaluation_id": rec.evaluation_id,
                "dataset_id": dataset_id,
            },
        ),
    )


__all__ += ["record_decision"]


# --------------------------------------------------------------------------- the shadow anchor

#: The dataset setting that marks a dataset as the shadow validation set of a value table.
SHADOW_KEY = "shadow"
SHADOW_REVIEW_DAYS = 92  # one quarter (evalcore.shadow.REVIEW_DAYS)


def mark_shadow(
    store: Store,
    actor: User,
    dataset_id: int,
    table: str,
    *,
    name: str | None = None,
    marked_on: date | None = None,
    review_days: int = SHADOW_REVIEW_DAYS,
) -> dict:
    """Mark dataset ``dataset_id`` as the shadow validation set of value table ``table``: a held-out
    set whose gold-standard value anchors (and, when a user enables it, rescales) the daily values of
    the datasets priced with that table. Model owner, risk or admin; audited with the old marking.

    ``name`` is how statements cite it (default the dataset's name); ``marked_on`` when it was drawn
    (default today); after ``review_days`` (default one quarter) it is flagged for review."""
    from evalcore._errors import InputError

    require(actor, "mark_shadow")
    rec = store.get_dataset(dataset_id)
    problems = []
    if not isinstance(table, str) or not table.strip():
        problems.append("name the value table the shadow set anchors.")
    if not isinstance(review_days, int) or isinstance(review_days, bool) or not 1 <= review_days <= 3660:
        problems.append(f"review period {review_days!r}: give a whole number of days from 1 to 3660 (a quarter is 92).")
    if rec.is_aggregate:
        problems.append(f"dataset {rec.name!r} is an aggregate; a shadow set needs its rows (upload them).")
    if problems:
        raise InputError("\n".join(problems))
    old = store.get_dataset_settings(dataset_id, SHADOW_KEY)
    value = {
        "active": True,
        "table": table.strip(),
        "name": (name or "").strip() or rec.name,
        "marked_on": (marked_on or date.today()).isoformat(),
        "review_days": int(review_days),
        "marked_by": actor.username,
    }
    store.save_dataset_settings(
        dataset_id, SHADOW_KEY, value, audit=(actor.username, "mark_shadow", str(dataset_id), {"from": old, "to": value})
    )
    return value


def unmark_shadow(store: Store, actor: User, dataset_id: int) -> None:
    """The dataset is no longer a shadow set (model owner, risk or admin; audited)."""
    require(actor, "mark_shadow")
    old = store.get_dataset_settings(dataset_id, SHADOW_KEY)
    value = {**(old or {}), "active": False, "unmarked_by": actor.username}
    store.save_dataset_settings(
        dataset_id, SHADOW_KEY, value, audit=(actor.username, "unmark_shadow", str(dataset_id), {"from": old})
    )


def shadow_sets(store: Store, table: str) -> list:
    """The datasets marked as shadow sets of value table ``table``: (DatasetRecord, setting), newest
    marking first."""
    out = []
    for rec in store.list_datasets():
        v = store.get_dataset_settings(rec.id, SHADOW_KEY)
        if v and v.get("active") and v.get("table") == table:
            out.append((rec, v))
    return sorted(out, key=lambda p: (p[1].get("marked_on", ""), p[0].id), reverse=True)


__all__ += ["SHADOW_KEY", "mark_shadow", "shadow_sets", "unmark_shadow"]
