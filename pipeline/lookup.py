"""Players named on the command line: by id, or by name (docs/analysis.md "Players by name").

``arpad plot history Steinitz "Zukertort, J"`` takes ids or names. A text that is a
player id is that player. Otherwise it is matched against the names of the players
rated in the system and pool asked for, and the names of the merged duplicates of
those players (a duplicate has no ratings of its own: a name that is its name, or
matches only it, finds the id it was merged into; a name matching both counts once,
as the kept id; docs/identity.md "Merged ids everywhere"): first the exact name
(case-insensitive), else
the normalised name (pipeline/identity.py ``normalise_name``): same surname, and
given names equal or one the abbreviation of the other; a text without given names
("Steinitz") matches on the surname alone. When nothing matches so, two looser
passes follow, each only if the one before found nobody: surnames without their
particles ("Jaenisch" or "Von Jaenisch" for "Von Jaenisch, Carl Friedrich":
``PARTICLES``), then the same names as transliterations (pipeline/transliterate.py
``phonetic_key``: "Aljechin" for "Alekhine", "Nimzovich" for "Nimzowitsch"; docs/pgn-trf.md
"Historian's sources, round 2"). Exactly one match is needed: none, or several
(listed with their ids), is a one-line ``ValueError`` (exit 2).

``one_player`` does the same for the commands and API calls about one player
(``history``, ``card``, ``audit``): an id is used as it is (a merged duplicate's:
its keep's), anything else is a name matched among the players with ratings rows in
the system and pool asked for (also a player not rated yet, as his id finds him).
"""

from __future__ import annotations

import polars as pl

from arpad.pipeline.identity import normalise_name

MAX_LISTED = 8  # candidates named in the error message
# Name particles a reader may leave out of a surname or put before it without a comma
# ("Von Jaenisch", "van der Wiel"); dropped by the looser passes only.
PARTICLES = frozenset("von van der den de da di du del della des la le ten ter y zu".split())


def resolve_players(
    store, specs: list[str], rated: pl.DataFrame | None = None, what: str = "rated"
) -> list[tuple[str, str]]:
    """(player_id, display name) for each of ``specs``, in order, duplicates dropped.

    ``rated``: a frame with ``player_id`` (the players that have ratings in the system
    and pool asked for, ``what`` naming them, e.g. ``whr/standard``); names are only
    matched among them and their merged duplicates."""
    return [(pid, name) for pid, name, _ in _resolve_specs(store, specs, rated, what)]


def _resolve_specs(
    store, specs: list[str], rated: pl.DataFrame | None, what: str
) -> list[tuple[str, str, str]]:
    """(player_id, display name, the id the text found: ``player_id`` or a merged
    duplicate of it) for each of ``specs`` (``resolve_players``)."""
    players = pl.from_arrow(store.read_players()).select("player_id", "name")
    if rated is not None and rated.height == 0 and "/" in what:
        system, _, pool = what.partition("/")  # nothing rated there: say that, not "no such name"
        raise ValueError(
            f"no {what} history: no {what} ratings in the store, so no player is found by name "
            f"(arpad rate --system {system} --pool {pool} first)"
        )
    everyone = players
    if rated is not None:
        players = players.join(rated.select("player_id").unique(), on="player_id", how="semi")
    names = dict(zip(players["player_id"], players["name"], strict=True))
    from arpad.pipeline.identity import alias_map

    merged = alias_map(store)  # a merged duplicate id answers for its kept id
    stored = dict(zip(everyone["player_id"], everyone["name"], strict=True))
    # the merged duplicates of the candidates, by their own names
    candidates = names | {d: stored.get(d) for d, k in merged.items() if k in names}
    out: dict[str, tuple[str, str]] = {}
    for spec in specs:
        text = merged.get(spec.strip(), spec)
        try:
            found = _resolve(text, candidates, what, merged)
        except NoMatch:
            if rated is None:
                raise
            _unrated_match(text, everyone, what, merged)
            raise
        pid = merged.get(found, found)
        out.setdefault(pid, (names.get(pid) or pid, found))
    return [(pid, name, found) for pid, (name, found) in out.items()]


class NoMatch(ValueError):
    """No player of that name among the candidates."""


def match_name(spec: str, names: dict[str, str | None], what: str) -> str:
    """The one id among ``names`` (id → name) that ``spec`` names, by the passes of
    ``resolve_players`` (a file's players: ``arpad norm FILE --player NAME``)."""
    return _resolve(spec, names, what)


def _unrated_match(
    spec: str, everyone: pl.DataFrame, what: str, merged: dict[str, str] | None = None
) -> None:
    """A name that matches one stored player without ratings in ``what``: say who it is
    (a historical player has no FIDE rating), not "no such id or name"."""
    names = dict(zip(everyone["player_id"], everyone["name"], strict=True))
    try:
        pid = _resolve(spec, names, what, merged)
    except ValueError:
        return
    kept = (merged or {}).get(pid)
    who = f", merged into {kept} ({names.get(kept)})" if kept else ""
    raise ValueError(
        f"no {what} history for player(s) {spec}: the name is {pid} ({names[pid]}){who}, "
        f"who has no {what} rating"
    )


def rated_ids(store, system: str, pool: str, unrated: bool = False) -> pl.DataFrame:
    """The ids with at least one rating in ``system``/``pool`` (names are matched among
    them); ``unrated``: every id with a ratings row there, also a player with no rating
    yet (status unrated: his games pooled for an initial rating), as his id finds him."""
    from arpad.pipeline import catalog

    rating = "" if unrated else " AND rating_after IS NOT NULL"
    con = catalog.connect(store)
    try:
        return catalog.query_frame(
            con,
            f"SELECT DISTINCT player_id FROM ratings WHERE system = ? AND pool = ?{rating}",
            [system, pool],
        )
    finally:
        con.close()


def one_player(store, spec: str, system: str, pool: str = "standard") -> str:
    """The player id ``spec`` names: a stored player id (a merged duplicate: the id it
    was merged into), else a name matched among the players with ratings rows in
    ``system``/``pool``, rated or not yet (exactly one match, as ``resolve_players``)."""
    return found_player(store, spec, system, pool)[0]


def found_player(store, spec: str, system: str, pool: str = "standard") -> tuple[str, str]:
    """(``one_player``, the id ``spec`` found): the stored id typed, or the id whose
    name it is — the player's own, or a merged duplicate's (the note then says it was
    merged: pipeline/commands/common.py ``resolve_player``)."""
    from arpad.pipeline.identity import nfc, resolve_id

    for text in dict.fromkeys((spec, nfc(spec))):  # as typed, then in the stored spelling
        kept = resolve_id(store, text)
        if kept != text or _is_player_id(store, text):
            return kept, text
    rated = rated_ids(store, system, pool, unrated=True)  # the players an id finds
    pid, _, found = _resolve_specs(store, [spec], rated, f"{system}/{pool}")[0]
    return pid, found


def _is_player_id(store, spec: str) -> bool:
    import pyarrow.compute as pc

    ids = store.read_players().column("player_id")
    return bool(pc.any(pc.equal(ids, spec)).as_py())


def _resolve(
    spec: str, names: dict[str, str | None], what: str, merged: dict[str, str] | None = None
) -> str:
    """The one id of ``names`` that ``spec`` names. ``merged`` (duplicate → kept id):
    ids of ``names`` with one kept id count as one player, the kept id if it matched."""
    from arpad.pipeline.identity import nfc, spelt_as_stored

    def people(ids: list[str]) -> list[str]:
        if not merged:
            return ids
        keeps = {merged.get(p, p) for p in ids}
        return [k if k in ids else min(p for p in ids if merged.get(p) == k) for k in keeps]

    text = spelt_as_stored(spec.strip(), names)
    if text in names:
        return text
    text = nfc(text)  # names are stored in NFC (docs/ingest.md "One spelling of an id")
    exact = people([p for p, n in names.items() if n and nfc(n.strip()).lower() == text.lower()])
    if len(exact) == 1:
        return exact[0]
    if not exact:
        surname, given = normalise_name(text)
        exact = [p for p, n in names.items() if _compatible(surname, given, n)] if surname else []
    for loose in (_bare, _phonetic):
        if exact:
            break
        key = loose(normalise_name(text))
        if key[0]:
            exact = [p for p, n in names.items() if _compatible(*key, n, loose)]
    if not exact:
        # "Lakunza" of a TRF's "Lakunza Oyarbide Juan Carlos" (surnames first, no
        # comma: read as the surname "carlos"): the name's first words
        lead = _words(text)
        exact = [
            p
            for p, n in names.items()
            if lead and n and "," not in n and _words(n)[: len(lead)] == lead
        ]
    if not exact and lead:
        # a compound surname before its comma ("Heydebrand und der Lasa, Tassilo"): its
        # first words ("Heydebrand") or its last ("Lasa", "der Lasa")
        def compound(n: str) -> bool:
            words = _words(n.partition(",")[0])
            return len(words) > 1 and lead in (words[: len(lead)], words[-len(lead) :])

        exact = [p for p, n in names.items() if n and "," in n and compound(n)]
    exact = people(exact)
    if len(exact) == 1:
        return exact[0]
    if not exact:
        # other given names (a German "Wilhelm" for "William"): named, never guessed
        surname = _bare(normalise_name(text))[0]
        same = sorted(
            people(
                [p for p, n in names.items() if surname and _bare(normalise_name(n))[0] == surname]
            )
        )
        hint = (
            "; same surname: " + "; ".join(f"{p} ({names[p]})" for p in same[:MAX_LISTED])
            if same
            else ""
        )
        raise NoMatch(
            f"no {what} history for player(s) {spec} (no such id or name{hint}; "
            "arpad players lists them)"
        )
    listed = "; ".join(f"{p} ({names[p]})" for p in sorted(exact)[:MAX_LISTED])
    more = f" and {len(exact) - MAX_LISTED} more" if len(exact) > MAX_LISTED else ""
    raise ValueError(
        f"{spec!r} matches {len(exact)} players: {listed}{more}; give an id or a fuller name"
    )


def _words(name: str) -> list[str]:
    """The words of a name, lower case, accents and punctuation removed."""
    import re
    import unicodedata

    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return [w for w in re.split(r"[^a-z0-9]+", text) if w]


def _bare(name: tuple[str, tuple[str, ...]]) -> tuple[str, tuple[str, ...]]:
    """A normalised name without its particles ("von jaenisch" → "jaenisch")."""
    surname, given = name
    words = [w for w in surname.split() if w not in PARTICLES]
    return " ".join(words or surname.split()), tuple(w for w in given if w not in PARTICLES)


def _phonetic(name: tuple[str, tuple[str, ...]]) -> tuple[str, tuple[str, ...]]:
    """The transliteration key of a name without its particles."""
    from arpad.pipeline.transliterate import phonetic_key

    return phonetic_key(*_bare(name))


def _compatible(surname: str, given: tuple[str, ...], name: str | None, key=None) -> bool:
    s, g = normalise_name(name)
    if key is not None:
        s, g = key((s, g))
    if s != surname:
        return False
    if not given:
        return True
    return len(g) >= 1 and all(
        x.startswith(y) or y.startswith(x) for x, y in zip(given, g, strict=False)
    )
