"""Guards of the layering and kernel rules (docs/developing.md "Layout and dependency
direction") and of the rating-system interface (docs/developing.md "A rating system")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from arpad.pipeline.systems import system_names
from arpad.pipeline.systems.base import RatingSystem

REPO = Path(__file__).resolve().parents[1]
KERNEL_IMPORTS = {"numpy", "numba", "math", "typing", "kernels"}
# The compilation machinery beside the kernels (when and how they are compiled, Numba on
# first need, the ahead-of-time module): the standard library too, but no data plane.
MACHINERY = {"config.py", "aot.py"}


def top_module(name: str) -> str:
    """``numpy.linalg`` -> numpy; arpad's own ``arpad.kernels.fide`` -> kernels."""
    parts = name.split(".")
    return parts[1] if parts[0] == "arpad" and len(parts) > 1 else parts[0]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(top_module(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(top_module(node.module))
    return names


def test_kernels_import_only_numpy_numba_and_kernels():
    for path in sorted((REPO / "kernels").glob("*.py")):
        if path.name in MACHINERY:
            continue
        extra = imported_modules(path) - KERNEL_IMPORTS
        assert not extra, f"{path.name} imports {sorted(extra)}: kernels are pure array code"


def test_the_compilation_machinery_imports_no_data_plane():
    """kernels/config.py and kernels/aot.py: the standard library, NumPy, Numba (and its
    llvmlite) only; never the pipeline, polars, pyarrow, DuckDB or Prefect."""
    import sys

    allowed = KERNEL_IMPORTS | {"llvmlite", "__future__"} | set(sys.stdlib_module_names)
    for name in sorted(MACHINERY):
        extra = imported_modules(REPO / "kernels" / name) - allowed
        assert not extra, f"{name} imports {sorted(extra)}"


def test_numba_flags_are_decided_in_one_place():
    """No kernel calls numba.njit/jit itself or sets fastmath: kernels.config decides."""
    for path in sorted((REPO / "kernels").glob("*.py")):
        if path.name == "config.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "numba":
                names = {a.name for a in node.names}
                assert not names & {"njit", "jit", "vectorize"}, f"{path.name} imports {names}"
            if isinstance(node, ast.keyword):
                assert node.arg not in ("fastmath", "parallel", "cache"), (
                    f"{path.name} sets {node.arg}: flags belong in kernels/config.py"
                )


def test_pipeline_never_imports_flows_except_the_cli():
    for path in sorted((REPO / "pipeline").rglob("*.py")):
        if path.name in ("cli.py", "launch.py") or path.parent.name == "commands":
            continue  # launch.py runs a job as its flow when asked; the CLI's deploy/serve
        assert "flows" not in imported_modules(path), f"{path} imports flows"


def test_numba_is_used_only_in_kernels():
    for path in sorted((REPO / "pipeline").rglob("*.py")) + sorted((REPO / "flows").glob("*.py")):
        mods = imported_modules(path)
        assert "numba" not in mods, f"{path} imports numba: compiled code belongs in kernels/"


# -- the rating-system interface is declared whole (pipeline/systems/base.py) ----------------
def _callers() -> list[Path]:
    """pipeline/ and flows/ code outside pipeline/systems/ (the callers of systems)."""
    files = sorted((REPO / "pipeline").rglob("*.py")) + sorted((REPO / "flows").rglob("*.py"))
    return [p for p in files if "systems" not in p.relative_to(REPO).parts]


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


HOOKS = {n for n in dir(RatingSystem) if not n.startswith("__")}


def test_no_probing_of_systems():
    """Callers call the hooks RatingSystem declares; nothing probes a system with
    getattr/hasattr or the inspect module (every hook has a default in the base class)."""
    problems = []
    for path in _callers():
        rel = path.relative_to(REPO)
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name == "inspect" for a in node.names):
                problems.append(f"{rel}:{node.lineno}: imports inspect")
            if isinstance(node, ast.ImportFrom) and node.module == "inspect":
                problems.append(f"{rel}:{node.lineno}: imports from inspect")
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and node.args
            ):
                continue
            target = ast.unparse(node.args[0])
            attr = node.args[1] if len(node.args) > 1 else None
            hook = isinstance(attr, ast.Constant) and attr.value in HOOKS
            if re.search(r"sys|system", target, re.IGNORECASE) or hook:
                problems.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    assert not problems, "probing of rating systems:\n" + "\n".join(problems)


# Literals equal to a system name that are not system names, by file (with the reason).
NAME_LITERALS_ALLOWED = {
    # FIDE's table-8.1.1 performance method and its PerformanceResult column (--method fide)
    "pipeline/performance.py": {"fide"},
    # rating scales of `arpad convert --from/--to` (fide = elo scale, ecf grades, Ingo numbers)
    "pipeline/conversions.py": {"ecf", "fide", "elo", "ingo"},
    # rating-class tables of `arpad tournament --table` (FIDE/Elo and USCF class names)
    "pipeline/tournament.py": {"fide", "uscf"},
}


def test_no_system_names_outside_the_systems():
    """Only pipeline/systems/ names systems (DEFAULT_SYSTEM is the commands' default);
    callers ask the system for what differs (lower_is_better, performance_method …)."""
    names = system_names()
    quoted = re.compile("['\"](" + "|".join(re.escape(n) for n in names) + ")['\"]")
    problems = []
    for path in _callers():
        rel = path.relative_to(REPO).as_posix()
        allowed = NAME_LITERALS_ALLOWED.get(rel, set())
        tree = ast.parse(path.read_text(), filename=str(path))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
                continue
            if id(node) in skip:
                continue
            found = {node.value} & set(names) or set(quoted.findall(node.value))
            if found - allowed:
                problems.append(f"{rel}:{node.lineno}: {sorted(found - allowed)} in {node.value!r}")
    assert not problems, "system names outside pipeline/systems/:\n" + "\n".join(problems)


def test_every_system_subclasses_the_base_class():
    from arpad.pipeline.systems import get_system

    for name in system_names():
        system = get_system(name)
        assert isinstance(system, RatingSystem), name
        assert system.name == name and system.rules_type is not object, name
        for hook in ("initial_state", "step"):
            assert getattr(type(system), hook) is not getattr(RatingSystem, hook), (name, hook)


# -- citations stay inside the repository ------------------------------------------------------
OUTSIDE_DOCS = ("shared/spec", "RULES.md", "ARCHITECTURE.md", "STYLE.md", "ACCURACY.md")
OUTSIDE_DOCS += ("TRF_FORMAT.md",)


def _cited_files() -> list[Path]:
    files = [REPO / "README.md"]
    for folder in ("pipeline", "kernels", "flows", "docs", "tests"):
        files += [
            p
            for p in sorted((REPO / folder).rglob("*"))
            if p.suffix in (".py", ".md", ".json", ".csv", ".txt") and "__pycache__" not in p.parts
        ]
    return [p for p in files if p != Path(__file__).resolve()]


def test_citations_name_documents_inside_the_repository():
    """Comments, docstrings, docs and tests cite docs/*.md, never files outside the repo."""
    problems = []
    for path in _cited_files():
        for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for name in OUTSIDE_DOCS:
                if name in line:
                    problems.append(f"{path.relative_to(REPO)}:{no}: {name}")
            for doc in re.findall(r"docs/[\w.-]+\.md", line):
                if not (REPO / doc).exists():
                    problems.append(f"{path.relative_to(REPO)}:{no}: {doc} does not exist")
    assert not problems, "citations outside the repository:\n" + "\n".join(problems)


def test_dated_versions_are_picked_in_one_place():
    """Every system with dated rules picks the version with base.pick_version: no
    module of its own compares ``effective`` dates (docs/rules.md "Dated versions")."""
    for path in sorted((REPO / "pipeline" / "systems").glob("*.py")):
        if path.name == "base.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                text = ast.unparse(node)
                assert ".effective" not in text, f"{path.name}:{node.lineno}: {text}"
