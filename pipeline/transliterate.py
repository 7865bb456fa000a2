"""Transliteration of player names (docs/identity.md "Transliterations").

Two rule-based steps, so that a name written from a Cyrillic source, or in another
language's romanisation, meets the same person where no FIDE id ties them:

1. ``to_latin``: Cyrillic letters to Latin by one table (``CYRILLIC``, close to the
   English "BGN/PCGN" usage chess books follow: х → kh, ч → ch, ш → sh, щ → shch,
   ж → zh, ц → ts, й → i, ю → yu, я → ya; ъ and ь dropped). ``normalise_name``
   (pipeline/identity.py) applies it first, so "Алехин, Александр" normalises to
   ("alekhin", ("aleksandr",)).
2. ``phonetic_word``: a key that folds the usual German, French and English
   romanisations of one sound into one spelling (``RULES``, applied in order to a
   normalised word: lower-case ASCII letters). Two names whose keys agree are
   *transliterations* of each other: weaker evidence than equal normalised names
   (``SCORE_TRANSLITERATED`` in pipeline/identity.py), and the given names still have
   to agree (as keys), so "Paulsen, Louis" and "Paulsen, Wilfried" stay two people.

The key is a matching device, not a spelling: "Alekhine", "Aljechin", "Alechin" and
"Aljekhin" all give "alehin"; "Tchigorin", "Chigorin" and "Tschigorin" "higorin";
"Nimzowitsch" and "Nimzovich" "nimzovih"; "Loewenthal" and "Löwenthal" (German ö
written oe, normalised "lowenthal") "loventhal"; "Steinitz" stays "steinitz".
"""

from __future__ import annotations

import re

# Russian, plus the Ukrainian/Belarusian letters (і ї є ґ ў); lower case (upper is mapped
# through ``str.lower``).
CYRILLIC = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh",
    "з": "z", "и": "i", "й": "i", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o",
    "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts",
    "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
    "я": "ya", "і": "i", "ї": "i", "є": "ye", "ґ": "g", "ў": "u",
}  # fmt: skip

# Latin letters Unicode does not decompose into a base letter and an accent (so NFKD
# leaves them, and ``normalise_name`` would break the word there): their usual ASCII
# spelling. ß is always ss; æ, œ are the ligatures; ø is folded as ö is (to o).
LATIN_LETTERS = {
    "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
    "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ı": "i",
}  # fmt: skip
_LATIN_TABLE = str.maketrans(LATIN_LETTERS)

_CONSONANT = "bcdfghjklmnpqrstvwxz"

# (pattern, replacement), in order. Each folds spellings of one sound in the German,
# French or English romanisation of a (mostly Russian) name.
RULES: tuple[tuple[str, str], ...] = (
    (r"x", "ks"),  # Alexander / Aleksandr
    (r"ph", "f"),
    (r"(?:ff|w)$", "v"),  # -off / -ow / -ov endings: Smyslow, Romanoff
    (r"w", "v"),  # German w = v: Nimzowitsch / Nimzovich
    (r"(?:tsch|tch|cz)", "ch"),  # German tsch, French tch, Polish cz = English ch
    (r"(?:sch|sh)", "S"),  # German sch = English sh (held as one mark)
    (r"(?:kh|ch)", "h"),  # Russian х: English kh, German ch (so ch and kh fold together)
    (r"[jy]", "i"),  # й/ы/ю/я: German j, English y, i
    (rf"([{_CONSONANT}])i(?=e)", r"\1"),  # German -je- after a consonant: Aljechin / Alekhin
    # German ä ö ü written ae oe ue (Loewenthal / Löwenthal, Huebner / Hübner):
    # normalise_name strips the accent (ö → o), the key drops the e. Only in the key:
    # "oe" is also Dutch (Hoek) or English (Joel), so it never changes a normalised name.
    (r"([aou])e", r"\1"),
    (r"ou", "u"),  # French ou = u
    (r"(.)\1+", r"\1"),  # doubled letters: -kii / -ki, -ff
    (rf"(?<=..[{_CONSONANT}])e$", ""),  # French final -e: Alekhine, Tchigorine
    (rf"(?<=[{_CONSONANT}])er$", "r"),  # -ander / -andr (Alexander / Aleksandr)
    (r"S", "sh"),
)
_COMPILED = tuple((re.compile(p), r) for p, r in RULES)


def to_latin(text: str) -> str:
    """``text`` with every Cyrillic letter replaced by ``CYRILLIC``; a capital gives a
    capital first letter ("Хмельницкий" → "Khmelnitskii"), or all capitals inside a word
    written in capitals ("АЛЕХИН" → "ALEKHIN"); other characters unchanged."""
    out = []
    for i, ch in enumerate(text):
        low = ch.lower()
        latin = CYRILLIC.get(low)
        if latin is None:
            out.append(ch)
        elif ch == low:
            out.append(latin)
        elif any(c.isupper() for c in text[max(0, i - 1) : i] + text[i + 1 : i + 2]):
            out.append(latin.upper())
        else:
            out.append(latin[:1].upper() + latin[1:])
    return "".join(out)


def fold_letters(text: str) -> str:
    """``text`` with each letter of ``LATIN_LETTERS`` spelt out ("Meßner" → "Messner",
    "Michał" → "Michal"); other characters unchanged."""
    return text.translate(_LATIN_TABLE)


def phonetic_word(word: str) -> str:
    """The key of one normalised word (lower-case ASCII letters) by ``RULES``."""
    for pattern, replacement in _COMPILED:
        word = pattern.sub(replacement, word)
    return word


def phonetic_key(surname: str, given: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The key of a normalised name (``normalise_name``'s result), word by word."""
    return (
        " ".join(phonetic_word(w) for w in surname.split()),
        tuple(phonetic_word(w) for w in given),
    )


# Given names only: spellings of one given name that 19th-century sources use side by
# side (docs/identity.md "Spelling variants of given names"), applied after ``RULES``
# (which already fold ph / f, and doubled letters: Adolph / Adolf, Matthias / Mathias).
# Not for surnames: "Kohn" / "Cohn" or "Schultz" / "Schulz" are different families as
# often as one.
VARIANT_RULES: tuple[tuple[str, str], ...] = (
    (r"c(?![eiy])", "k"),  # hard c (soft c before e, i, y stays): Carl / Karl, Jacob / Jakob
    (r"tz", "z"),  # Ignatz / Ignaz, Moritz / Moriz
    (r"th", "t"),  # Günther / Günter, Walther / Walter, Mathias / Matias
    (r"(.)\1+", r"\1"),  # the doubles these make: Frederick / Frederik (ck, kk, k)
)
_VARIANTS = tuple((re.compile(p), r) for p, r in VARIANT_RULES)


def variant_key(given: tuple[str, ...]) -> tuple[str, ...]:
    """The spelling-variant key of normalised given names: each word's ``phonetic_word``
    with ``VARIANT_RULES`` applied ("Carl" and "Karl" give "karl", "Johann Jacob" and
    "Johann Jakob" ("iohan", "iakob"), "Ignatz" and "Ignaz" "ignaz")."""
    out = []
    for word in given:
        word = phonetic_word(word)
        for pattern, replacement in _VARIANTS:
            word = pattern.sub(replacement, word)
        out.append(word)
    return tuple(out)
