"""Accounts, sessions, roles, sign-off and the audit trail (below services; imports only store and evalcore)."""
