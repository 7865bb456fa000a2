"""arpad: a batch rating pipeline for chess federations.

The notebook API (docs/api.md)::

    import arpad
    ratings = arpad.rate(games, system="fide", players=players)   # in memory, no store
    store = arpad.Store("arpad-store")                            # a store on disk
    store.ingest("games.csv", players="players.csv")             # FIDE needs ratings
    store.rate("fide"); store.list("fide", top=10)
    pairs = store.identify(); store.merge(mapping=pairs)          # one player, two ids
    arpad.predict(ratings, pairings, system="fide")               # expected scores
    arpad.predict(ratings, pairings, system="fide", draws=0.3)    # + P(win/draw/loss)
    arpad.backtest("kaggle2010", systems=["elo", "glicko2"])      # arpad backtest's table
    arpad.whatif(store, rules="2022-01", vs="dated")               # arpad whatif's tables

``import arpad`` is cheap: the API and the packages behind it (``arpad.pipeline``,
``arpad.kernels``, ``arpad.flows``) load on first use.
"""

from __future__ import annotations

__version__ = "0.1.0"

_API = (
    "rate",
    "predict",
    "fit_draws",
    "DrawModel",
    "Store",
    "systems",
    "InputError",
    "StoreBusyError",
    "StaleRatingsWarning",
    "backtest",
    "whatif",
    "WhatIf",
    "category",
    "norm",
    "performance",
)
__all__ = [*_API, "__version__"]


def __getattr__(name: str):
    if name in _API:
        from arpad import api

        return getattr(api, name)
    raise AttributeError(f"module 'arpad' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
