"""Rating systems: each module holds one system's rules and formula behind the
shared ``step(state, period_games, rules) -> (state, report)`` shape; every system
subclasses ``base.RatingSystem``, which declares every hook the pipeline calls."""

from __future__ import annotations

from arpad.pipeline.systems.base import RatingSystem

# The system commands use when none is named (``--system``, ``arpad history`` …): the one
# place outside a system's module that names a system (tests/test_architecture.py).
DEFAULT_SYSTEM = "fide"
# The system of the FIDE-only tools (card, what-if, rule versions), without importing it.
FIDE_SYSTEM = "fide"

# Built-in systems whose numbers are lower-is-better (rank 1 = the smallest number),
# known without importing their modules: the catalog's ranking SQL is built by every
# reading command, and importing every system module imports Numba (0.2-0.4 s). Each
# one's class declares ``lower_is_better`` too; tests/test_systems.py checks they agree.
LOWER_IS_BETTER = ("ingo",)
# Built-in systems whose interim rows count the open cycle's games so far
# (``cumulative_interim_games``), for the catalog's period_summary in the same way.
CUMULATIVE_INTERIM = ("ecf",)
# Built-in systems whose status ``inactive`` is already a list's inactivity
# (``status_is_list_activity``), for the catalog's rating_list in the same way.
LIST_ACTIVITY = ("fide",)

_REGISTRY: dict[str, RatingSystem] = {}


def register(system: RatingSystem) -> RatingSystem:
    if not isinstance(system, RatingSystem):
        raise TypeError(f"{type(system).__name__} must subclass RatingSystem (base.py)")
    if not system.name:
        raise ValueError(f"{type(system).__name__} has no name")
    _REGISTRY[system.name] = system
    return system


def get_system(name: str) -> RatingSystem:
    if name not in _REGISTRY:
        _load_one(name)
    if name not in _REGISTRY:
        _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        import difflib

        known = ", ".join(sorted(_REGISTRY))
        near = difflib.get_close_matches(str(name).lower(), sorted(_REGISTRY), n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise ValueError(f"unknown rating system {name!r}{hint} (known: {known})") from None


def _load_one(name: str) -> None:
    # A built-in system lives in the module of its name ("elo-linear": elo_linear.py):
    # importing only that one keeps the other systems' modules and kernels out of a run
    # of one system (docs/runners.md "Start-up"); anything else loads every module.
    import importlib
    import importlib.util

    module = f"{__name__}.{name.replace('-', '_')}"
    if name.replace("-", "_").isidentifier() and importlib.util.find_spec(module) is not None:
        importlib.import_module(module)


def lower_is_better_names() -> tuple[str, ...]:
    """Lower-is-better systems, sorted: the built-in ones (``LOWER_IS_BETTER``) and any
    registered in this process whose class declares it (without importing the others)."""
    registered = (name for name, system in _REGISTRY.items() if system.lower_is_better)
    return tuple(sorted({*LOWER_IS_BETTER, *registered}))


def cumulative_interim_names() -> tuple[str, ...]:
    """Systems whose ``provisional`` rows count the open cycle's games so far, sorted:
    the built-in ones (``CUMULATIVE_INTERIM``) and any registered in this process whose
    class declares ``cumulative_interim_games``."""
    registered = (n for n, system in _REGISTRY.items() if system.cumulative_interim_games)
    return tuple(sorted({*CUMULATIVE_INTERIM, *registered}))


def list_activity_names() -> tuple[str, ...]:
    """Systems whose status ``inactive`` is a list's inactivity, sorted: the built-in ones
    (``LIST_ACTIVITY``) and any registered in this process whose class declares
    ``status_is_list_activity``."""
    registered = (n for n, system in _REGISTRY.items() if system.status_is_list_activity)
    return tuple(sorted({*LIST_ACTIVITY, *registered}))


def system_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def _load_builtin() -> None:
    # Importing a module registers its system.
    import importlib
    import pkgutil

    import arpad.pipeline.systems as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name != "base":
            importlib.import_module(f"{package.__name__}.{info.name}")
