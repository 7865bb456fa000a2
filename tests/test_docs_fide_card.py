"""The rating card pasted in docs/fide-history.md "Rating card" is the card the command prints.

The doc says it is the card of P002 for 2024-03 on the store of "Example: a replay across
2009–2026" (``arpad fide-sample`` writes the same files every time). This test runs those
commands (fide-sample, ingest, rate --system fide, card) and compares the output with the
fenced block, line for line, so a change of the rating logic that moves the card makes the
test fail until the doc is regenerated (docs/cli.md "Documented examples, checked").
"""

from __future__ import annotations

from pathlib import Path

from arpad.pipeline.cli import main

DOC = Path(__file__).resolve().parents[1] / "docs" / "fide-history.md"


def documented_card() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("Rating card: P002  fide/standard  period 202403")
    end = text.index("```", start)
    return text[start:end]


def test_the_documented_card_is_the_card_printed_on_the_sample_store(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "S")
    assert main(["fide-sample", "sample/"]) == 0
    ingest = ["ingest", "sample/games.csv", "--players", "sample/players.csv", "--store", store]
    assert main(ingest) == 0
    assert main(["rate", "--system", "fide", "--store", store]) == 0
    capsys.readouterr()
    assert main(["card", "P002", "--period", "2024-03", "--store", store]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines() == documented_card().splitlines()
