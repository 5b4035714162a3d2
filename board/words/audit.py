"""The audit log's action names in the reader's language (issue 15). The log stores the system's
action codes (``save_draft``, ``sign_version``…); the Audit log page shows each as words, the code
kept beside it for an administrator who searches the database. Pure (no Streamlit)."""

from __future__ import annotations

from board.words.i18n import N_, t

__all__ = ["ACTIONS", "action_name"]

ACTIONS = {
    "add_user": N_("account added"),
    "change_role": N_("role changed"),
    "disable_user": N_("account disabled"),
    "enable_user": N_("account enabled"),
    "reset_password": N_("password reset"),
    "login": N_("logged in"),
    "login_failed": N_("login failed"),
    "login_throttle": N_("logins paused (too many failures)"),
    "login_client_throttle": N_("logins from an address paused"),
    "logout": N_("logged out"),
    "start_session": N_("session started"),
    "end_session": N_("session ended"),
    "revoke_sessions": N_("sessions revoked"),
    "upload_dataset": N_("dataset uploaded"),
    "register_dataset": N_("dataset registered by path"),
    "bind_value_table": N_("value table bound to a dataset"),
    "bind_table": N_("value table bound to a dataset"),
    "save_drift_settings": N_("drift settings saved"),
    "create_table": N_("value table created"),
    "clone_table": N_("value table cloned"),
    "rename_table": N_("value table renamed"),
    "archive_table": N_("value table archived"),
    "restore_table": N_("value table restored"),
    "set_table_display": N_("table's display set"),
    "set_own_display": N_("own display set"),
    "set_own_language": N_("own language set"),
    "save_draft": N_("draft saved"),
    "propose_version": N_("version proposed"),
    "sign_version": N_("version signed"),
    "approve_version": N_("version approved"),
    "reject_version": N_("version rejected"),
    "reopen_version": N_("version reopened as draft"),
    "publish_impact": N_("impact report stored"),
    "save_evaluation": N_("board snapshot saved"),
    "record_evaluation": N_("board snapshot saved"),
    "record_decision": N_("decision recorded"),
    "export": N_("export downloaded"),
    "create_meeting_link": N_("meeting link created"),
    "meeting_link_used": N_("meeting link opened"),
    "revoke_meeting_link": N_("meeting link revoked"),
    "mark_shadow": N_("dataset marked as a shadow set"),
    "unmark_shadow": N_("shadow set unmarked"),
}


def action_name(code: str, locale: str) -> str:
    """An action code in words ("save_draft" → "draft saved"; in Chinese 草稿已保存); an unknown
    code is shown as it is."""
    return t(ACTIONS[code], locale) if code in ACTIONS else code
