"""The board's random streams, named once.

One board seed (``BoardConfig.seed``) feeds every bootstrap of the board, each from its own
stream so that adding a model or a step never changes another step's draws:

=============  ==========================================  ===============================
what           the bootstrap                               seed
=============  ==========================================  ===============================
"ev"           EV at the deployed threshold of model i     ``seed + SEED_STRIDE * i``
"optimum"      the re-optimising pass of model i           ``seed + SEED_STRIDE * i + SEED_OPT``
"comparison"   the paired comparison of the two models     ``seed + SEED_CMP``
=============  ==========================================  ===============================

Pages that replay one of these bootstraps (the Uncertainty page) take the seed from
:func:`board_seed`, so they show the board's numbers.
"""

from __future__ import annotations

__all__ = ["SEED_STRIDE", "SEED_OPT", "SEED_CMP", "STREAMS", "board_seed"]

SEED_STRIDE = 17  # between the streams of consecutive models
SEED_OPT = 1  # the re-optimising bootstrap, after the model's EV interval
SEED_CMP = 99  # the paired comparison (past the streams of the first models)
STREAMS = ("ev", "optimum", "comparison")


def board_seed(seed: int, what: str, model_index: int = 0) -> int:
    """The seed of one of the board's bootstraps.

    Parameters
    ----------
    seed : int
        The board's seed (``BoardConfig.seed``).
    what : {"ev", "optimum", "comparison"}
        The bootstrap: EV at the deployed threshold, the re-optimising pass (t_opt, EV_opt,
        AUC, band), or the paired comparison of two models.
    model_index : int, default=0
        Position of the model in the board (0 = first, A); ignored for "comparison".

    Returns
    -------
    int
        ``seed + 17·i`` ("ev"), ``seed + 17·i + 1`` ("optimum"), ``seed + 99`` ("comparison").

    Raises
    ------
    ValueError
        An unknown ``what`` (a programming error, not bad data).

    Examples
    --------
    >>> board_seed(7, "ev", 1), board_seed(7, "optimum", 1), board_seed(7, "comparison")
    (24, 25, 106)
    """
    if what == "ev":
        return int(seed) + SEED_STRIDE * int(model_index)
    if what == "optimum":
        return int(seed) + SEED_STRIDE * int(model_index) + SEED_OPT
    if what == "comparison":
        return int(seed) + SEED_CMP
    raise ValueError(f"what must be one of {STREAMS}; got {what!r}.")
