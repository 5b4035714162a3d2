"""The audit log's action names in the reader's language (issue 15). The log stores the system's
action codes (``save_draft``, ``sign_version``…); the Audit log page shows each as words, the code
kept beside it for an administrator who searches the database. Pure (no Streamlit)."""

from __future__ import annotations

from board.words.i18n import N_, t

__all__ = ["ACTIONS", "PERMISSION_WORDS", "action_name", "permission_words"]

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


#: what each permission (``board.access.governance.PERMISSIONS``) lets a user do, as the end of
#: "Your role may not …"
PERMISSION_WORDS = {
    "edit_draft": N_("edit a value table's draft"),
    "propose_version": N_("propose a value table version for sign-off"),
    "reopen_version": N_("reopen a value table version as a draft"),
    "sign_version": N_("sign a value table version"),
    "reject_version": N_("reject a value table version"),
    "upload_dataset": N_("upload a dataset"),
    "save_evaluation": N_("save a board snapshot"),
    "export": N_("download exports"),
    "use_value_tools": N_("use the value tools"),
    "edit_settings": N_("change a dataset's settings"),
    "manage_users": N_("manage accounts"),
    "view_audit": N_("read the audit log"),
    "view_board": N_("read the board"),
    "share_board": N_("share the board by meeting link"),
    "mark_shadow": N_("mark a dataset as a shadow validation set"),
}


def permission_words(action: str, locale: str) -> str:
    """A permission in words ("edit_draft" → "edit a value table's draft"); an unknown one as it is."""
    return t(PERMISSION_WORDS[action], locale) if action in PERMISSION_WORDS else action.replace("_", " ")
