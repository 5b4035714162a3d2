"""The drift settings saved with a dataset: read by everyone, changed by editors only, audited.

The settings decide the drift lights and so the board's advice for every user of the dataset:
a change needs an editor role (:data:`board.access.governance.PERMISSIONS` ``edit_settings``)
and leaves an audit entry with the settings saved, written in the same transaction.
"""

from __future__ import annotations

from board.access import governance
from board.access.auth import User
from board.store import Store
from evalcore import InputError
from evalcore.drift import DriftConfig

__all__ = ["SETTINGS_KEY", "load_config", "reset_config", "save_config"]

SETTINGS_KEY = "drift"  # store.save_dataset_settings(ds, SETTINGS_KEY, config.to_dict())


def load_config(store: Store, dataset_id: int) -> tuple[DriftConfig, str | None]:
    """The drift settings saved with the dataset (defaults if none), and a note when the
    saved ones no longer validate (then the defaults are used)."""
    saved = store.get_dataset_settings(dataset_id, SETTINGS_KEY)
    if saved is None:
        return DriftConfig(), None
    try:
        return DriftConfig.from_dict(saved), None
    except InputError as err:
        return DriftConfig(), "The saved drift settings are invalid, so the defaults are used: " + "; ".join(
            p.message for p in err.problems
        )


def save_config(store: Store, actor: User | None, dataset_id: int, config: DriftConfig) -> None:
    """Save ``config`` with the dataset; :class:`~board.access.governance.Forbidden` (nothing
    written) unless the actor may edit settings."""
    governance.require(actor, "edit_settings")
    store.save_dataset_settings(
        dataset_id,
        SETTINGS_KEY,
        config.to_dict(),
        audit=(actor.username, "save_drift_settings", str(dataset_id), {"dataset_id": dataset_id, "settings": config.to_dict()}),
    )
    from board.services.board_cache import changed

    changed(store, dataset_id)  # the board under the new settings, in the background (issue 18)


def reset_config(store: Store, actor: User | None, dataset_id: int) -> None:
    """Save the default settings with the dataset (an editor's action, audited)."""
    save_config(store, actor, dataset_id, DriftConfig())
