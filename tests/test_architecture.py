"""Guards of the layering and kernel rules in ../shared/spec/STYLE.md."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KERNEL_IMPORTS = {"numpy", "numba", "math", "typing", "kernels"}


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
        extra = imported_modules(path) - KERNEL_IMPORTS
        assert not extra, f"{path.name} imports {sorted(extra)}: kernels are pure array code"


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
