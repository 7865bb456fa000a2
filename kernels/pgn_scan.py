"""Byte-level scan of PGN text: one pass that finds games, tag values and movetext facts.

Pure array code over the file's bytes (uint8); ``pipeline/pgn.py`` turns the
result into columns. Each game is one int64 row of byte ranges and flags in
the layout below (-1: absent); ``TAG`` values start at column ``VALUES`` as
(start, end) pairs, one pair per name passed to ``scan_pgn``.

Comments (``{ }`` over any number of lines, ``;`` to the end of the line) are
followed through the whole movetext: a move is a letter outside them, and the
game ends at its first termination marker outside them and outside variations; a
game without one standing apart as a token ends with the last text outside them
(PGN Standard §8.2.5, §8.2.6; docs/pgn-trf.md).
"""

import numpy as np

from arpad.kernels.config import jit

# CASE: 1 when a wanted tag name was written in another case (`[white`); DIGEST: the
# moves' digest (``NO_MOVES``: none), DEPTH: the open variations ``(`` at the line's end.
# REPEAT: the line of the game's first wanted tag given again with another value
# (``[White "A5"]`` then ``[White "Z5"]``; -1: none), REPEAT_FIRST the line of that
# tag's first (kept) value, REPEAT_TAG its index in ``names``, REPEAT_VALUE (2 columns)
# the byte range of the other value.
# FIRST (2 columns): the byte range of the game's first termination marker outside
# comments and variations, where the game ends (PGN Standard §8.2.6); AFTER: the first
# byte of text outside comments after it (a tagless game, or stray text; -1: none).
LINE, BAD, MOVE, MARKER, LAST, CASE, DIGEST, DEPTH = 0, 1, 2, 3, 4, 6, 7, 8
REPEAT, REPEAT_FIRST, REPEAT_TAG, REPEAT_VALUE, FIRST, AFTER, VALUES = 9, 10, 11, 12, 14, 16, 17
# FNV-1a, 64 bits, as signed int64 (Numba's integer arithmetic wraps): the offset
# basis 14695981039346656037 is the digest of a movetext without a move.
NO_MOVES = np.int64(-3750763034362895579)
_FNV_PRIME = np.int64(1099511628211)
MARKERS = (None, "1-0", "0-1", "1/2-1/2", "*")  # codes 0..4 of the MARKER column
_HALF = np.frombuffer(b"1/2-1/2", np.uint8)
_BYTE_KIND = np.zeros(256, np.uint8)  # 1: ends a line (LF, CR); 2: ]
_BYTE_KIND[[10, 13]] = 1
_BYTE_KIND[93] = 2
# printable ASCII (33-126): no White_Space and no part of a longer character, so the
# blanks' checks at a line's ends need no call for it
_PRINTABLE = np.zeros(256, np.bool_)
_PRINTABLE[33:127] = True


def _ws_fwd(buf, i, end):
    """Byte length of the Unicode White_Space character starting at ``buf[i]`` (0: none).

    The set is Rust's ``char::is_whitespace``, i.e. what Polars ``str.strip_chars()``
    strips: ASCII 9-13 and 32, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
    U+202F, U+205F, U+3000 (UTF-8 encoded)."""
    c = buf[i]
    if c == 32 or (c >= 9 and c <= 13):
        return 1
    if c < 0x80:
        return 0
    if c == 0xC2:
        if i + 1 < end and (buf[i + 1] == 0x85 or buf[i + 1] == 0xA0):
            return 2
        return 0
    if i + 2 < end:
        return 3 if _ws3(c, buf[i + 1], buf[i + 2]) else 0
    return 0


def _ws3(c0, c1, c2):
    if c0 == 0xE2:
        if c1 == 0x80:
            return c2 <= 0x8A or c2 == 0xA8 or c2 == 0xA9 or c2 == 0xAF
        return c1 == 0x81 and c2 == 0x9F
    if c0 == 0xE1:
        return c1 == 0x9A and c2 == 0x80
    if c0 == 0xE3:
        return c1 == 0x80 and c2 == 0x80
    return False


def _ws_back(buf, j, start):
    """Byte length of the White_Space character ending just before ``buf[j]`` (0: none)."""
    c = buf[j - 1]
    if c == 32 or (c >= 9 and c <= 13):
        return 1
    if c < 0x80:
        return 0
    if j - 2 >= start and buf[j - 2] == 0xC2 and (c == 0x85 or c == 0xA0):
        return 2
    if j - 3 >= start and _ws3(buf[j - 3], buf[j - 2], c):
        return 3
    return 0


_ws3 = jit(_ws3)
_ws_fwd = jit(_ws_fwd)
_ws_back = jit(_ws_back)


# Byte classes of the movetext walk (``_movetext``): the token bytes first
# (_LETTER .. _RBRACE), then the bytes that end a token.
(_LETTER, _ZERO, _DIGIT, _DOT, _DASH, _NOMOVE, _MARK, _CAPTURE, _RBRACE) = range(9)
_SEP, _OPEN, _CLOSE, _BRACE, _SEMI, _EOL = range(9, 15)
_MOVE_KIND = np.full(256, _MARK, np.uint8)  # other bytes (+ # ! ? : = and non-ASCII): dropped
_MOVE_KIND[:33] = _SEP
_MOVE_KIND[65:91] = _LETTER
_MOVE_KIND[97:123] = _LETTER
_MOVE_KIND[120] = _CAPTURE  # x, the capture mark: dropped, but a move is there
_MOVE_KIND[125] = _RBRACE  # }: dropped, but the line holds a comment's end
_MOVE_KIND[48] = _ZERO
_MOVE_KIND[49:58] = _DIGIT
_MOVE_KIND[46] = _DOT
_MOVE_KIND[45] = _DASH
_MOVE_KIND[40] = _OPEN
_MOVE_KIND[41] = _CLOSE
_MOVE_KIND[123] = _BRACE
_MOVE_KIND[59] = _SEMI
_MOVE_KIND[[10, 13]] = _EOL
_MOVE_KIND[[36, 42, 47]] = _NOMOVE  # $ (a NAG), * (a result), / (1/2-1/2)
# a line starting with a letter or a digit is movetext (no tag, blank or % line):
# _scan reads it in one walk with its moves
_MOVETEXT_START = np.zeros(256, np.bool_)
_MOVETEXT_START[48:58] = True
_MOVETEXT_START[65:91] = True
_MOVETEXT_START[97:123] = True
# Token states: before a move (or after its number), a move number that is a lone 0
# (castling may follow) or another number, castling as 0- and as 0-0 (or longer), a
# move, no move (a result, a NAG, a null move "--"). A token is a move when it ends
# in _MOVE or _CASTLED.
_START, _NUMBER_0, _NUMBER, _ZEROS, _CASTLED, _MOVE, _DEAD = range(7)
# _NEXT[state, class]: the state after a token byte. _HASH[state, class]: what the byte
# adds to the digest: 0 nothing, 1 the byte (o as O), 2 "O" (a castling 0), 3 "O-"
# (the dash after a lone 0).
_NEXT = np.empty((7, 9), np.uint8)
_HASH = np.zeros((7, 9), np.uint8)
for _s in range(7):
    _NEXT[_s, :] = _s  # marks (+ x } ...) change nothing
    _NEXT[_s, _NOMOVE] = _DEAD
    _NEXT[_s, _LETTER] = _MOVE
    _HASH[_s, _LETTER] = 1
    _NEXT[_s, _DASH] = _DEAD
_NEXT[_START, [_ZERO, _DIGIT]] = (_NUMBER_0, _NUMBER)
_NEXT[[_NUMBER_0, _NUMBER], _DOT] = _START
_NEXT[[_NUMBER_0, _NUMBER], _ZERO] = _NUMBER
_NEXT[[_NUMBER_0, _NUMBER], _DIGIT] = _NUMBER
_NEXT[_NUMBER_0, _DASH] = _ZEROS
_HASH[_NUMBER_0, _DASH] = 3
for _s in (_ZEROS, _CASTLED):
    _NEXT[_s, [_LETTER, _DIGIT]] = _DEAD
    _HASH[_s, _LETTER] = 0
    _NEXT[_s, _ZERO] = _CASTLED
    _HASH[_s, _ZERO] = 2
    _NEXT[_s, _DASH] = _s
    _HASH[_s, _DASH] = 1
_NEXT[_MOVE, [_ZERO, _DIGIT, _DASH]] = _MOVE
_HASH[_MOVE, [_ZERO, _DIGIT, _DASH]] = 1
_NEXT[_DEAD, :] = _DEAD
_HASH[_DEAD, :] = 0
_TOKEN_MOVE = np.zeros(256, np.bool_)  # a letter or x: a move is there
_TOKEN_MOVE[65:91] = True
_TOKEN_MOVE[97:123] = True
_HASH_BYTE = np.arange(256, dtype=np.int64)  # what a byte adds to the digest: o as O
_HASH_BYTE[111] = 79


@jit
def _movetext(buf, i, b, in_comment, games, r, brace_at, more):
    """Read the movetext line starting at ``buf[i]`` (ending before ``b`` or at its first
    line break) into game row ``r`` of ``games``, and, with ``more``, the lines after it
    while each starts with a letter or a digit and no comment is open: a line in one
    walk, outside its comments, given whether a ``{`` comment is open at its start.
    Returns (next, lines, open, brace_at): the first byte of the line after the last
    one read, how many were read, whether a ``{`` comment is still open after the
    last, and ``_next_brace``'s last answer.

    Per line, the row gets ``MOVE`` 1 if a letter (a move) stands outside the comments;
    ``LAST`` the line's byte range up to the end of its text outside them (a line that
    is only comments is not where the termination marker is); ``DIGEST`` the moves'
    digest extended by the line's main-line moves: tokens outside comments and outside
    variations (``( )``, nested; ``DEPTH`` of them open). The first termination
    marker outside comments and variations, a token of its own, ends the game:
    ``FIRST`` its byte range; text outside comments after it is no move of the game
    (neither digested nor a move), ``AFTER`` where it starts.

    Braces do not nest, and ``;`` outside a brace comment comments out the rest of
    the line. A comment left open at the end of a line continues (and a
    ``[Tag "..."]`` line inside it is comment text) only if a ``}`` follows before
    any ``{``; otherwise it never closes, and is taken to end with its line, so that
    one stray ``{`` cannot turn the rest of the file into a comment.

    A move in its normal form (docs/pgn-trf.md "Move digest"): a move number
    (``12.``, ``12...``, also glued to the move: ``12.e4``), a result (``1-0``,
    ``1/2-1/2``, ``*``), a NAG (``$1``) and a null move (``--``) are no move;
    castling is ``O-O``/``O-O-O`` however written (``0-0``, ``o-o``); the marks ``+ #
    ! ? x : = .`` and non-ASCII bytes are dropped (``Nxe5+!`` is ``Ne5``, ``e8=Q`` is
    ``e8Q``). The digest is FNV-1a over the moves, each ended by one blank.

    One call reads a game's run of lines (not one call per line): each call of a
    function taking an array costs atomic reference-count updates (``_scan``)."""
    n = buf.size
    depth = games[r, DEPTH]
    h = games[r, DIGEST]
    done = games[r, FIRST] >= 0  # the game's termination marker was read
    lines = 0
    while True:
        a = i
        was_open = in_comment
        move = 0
        end = a
        brace = False
        skip = False  # after a ; comment
        state = _START
        th = h  # the digest with the token read so far: kept if it is a move
        q = a
        while q < b:
            c = buf[q]
            if in_comment or skip:
                if c == 10 or c == 13:
                    break
                if c == 125:
                    brace = True
                    in_comment = False
                q += 1
                continue
            k = _MOVE_KIND[c]
            if k < _SEP and done:  # after the game's marker: text, not the game's moves
                if games[r, AFTER] < 0:
                    games[r, AFTER] = q
                end = q + 1
                if k == _RBRACE:
                    brace = True
                q += 1
                continue
            if k < _SEP:  # a token byte: the tables say what it does (no branch per class)
                end = q + 1
                if _TOKEN_MOVE[c] or k == _CAPTURE:
                    move = 1
                how = _HASH[state, k]
                if how != 0:
                    th = (th ^ (_HASH_BYTE[c] if how == 1 else 79)) * _FNV_PRIME
                    if how == 3:
                        th = (th ^ 45) * _FNV_PRIME
                state = _NEXT[state, k]
                if k == _RBRACE:
                    brace = True
                q += 1
                continue
            # the token ends
            if depth == 0 and (state == _MOVE or state == _CASTLED):
                h = (th ^ 32) * _FNV_PRIME
            elif depth == 0 and state == _DEAD and not done:
                done = _first_marker(buf, a, q, games, r)
            th = h
            state = _START
            if k == _EOL:
                break
            if k == _BRACE:
                brace = True
                in_comment = True
            elif k == _SEMI:
                brace = True
                skip = True
            elif k == _OPEN or k == _CLOSE:
                if done and games[r, AFTER] < 0:
                    games[r, AFTER] = q
                if k == _OPEN:
                    depth += 1
                elif depth > 0:
                    depth -= 1
                end = q + 1
            q += 1
        if depth == 0 and (state == _MOVE or state == _CASTLED):
            h = (th ^ 32) * _FNV_PRIME
        elif depth == 0 and state == _DEAD and not done:
            done = _first_marker(buf, a, q, games, r)
        lines += 1
        j = q
        # the next line: after the line's CR LF, LF or CR (n + 1 at the end)
        i = j + 2 if (j + 1 < n and buf[j] == 13 and buf[j + 1] == 10) else j + 1
        while j > a and not _PRINTABLE[buf[j - 1]]:
            w = _ws_back(buf, j, a)
            if w == 0:
                break
            j -= w
        if move:
            games[r, MOVE] = 1
        if not (brace or was_open):  # no comment on this line: its text ends at j
            games[r, LAST] = a
            games[r, LAST + 1] = j
        else:
            if in_comment:
                brace_at = _next_brace(buf, q, brace_at)
                in_comment = brace_at < n and buf[brace_at] == 125
            if end > a:
                games[r, LAST] = a
                games[r, LAST + 1] = end
        if not more or in_comment or i >= n or not _MOVETEXT_START[buf[i]]:
            break
    games[r, DEPTH] = depth
    games[r, DIGEST] = h
    return i, lines, in_comment, brace_at


@jit
def _first_marker(buf, a, q, games, r):
    """True when the token ending before ``buf[q]`` (on the line starting at ``a``) is a
    termination marker as a whole (``1-0``, not ``21-0`` or ``12.1-0``): then its byte
    range becomes game ``r``'s ``FIRST``. A ``}`` before it ends a comment, not the
    token (``{won}1-0``)."""
    m = _line_marker(buf, a, q)
    if m == 0:
        return False
    s = q - (1 if m == 4 else (7 if m == 3 else 3))
    if s > a and buf[s - 1] != 125 and _MOVE_KIND[buf[s - 1]] < _SEP:
        return False
    games[r, FIRST] = s
    games[r, FIRST + 1] = q
    return True


@jit
def _line_marker(buf, a, b):
    """Termination marker ending ``buf[a:b]``, the movetext outside comments up to
    its last byte (0: none, 1-4: MARKERS). No marker is a suffix of another."""
    n = b - a
    if buf[b - 1] == 42:
        return 4
    if n >= 3 and buf[b - 2] == 45:
        if buf[b - 3] == 49 and buf[b - 1] == 48:
            return 1
        if buf[b - 3] == 48 and buf[b - 1] == 49:
            return 2
    if n >= 7:
        for q in range(7):
            if buf[b - 7 + q] != _HALF[q]:
                return 0
        return 3
    return 0


@jit
def _next_brace(buf, j, cached):
    """Index of the first ``{`` or ``}`` at or after ``j`` (``buf.size``: none). ``cached``
    is the previous answer: still right while ``j`` has not passed it, so the whole
    file is searched at most once however many comments are left open."""
    if j <= cached:
        return cached
    n = buf.size
    k = j
    while k < n and buf[k] != 125 and buf[k] != 123:
        k += 1
    return k


@jit
def _same_value(buf, a0, a1, b0, b1):
    """True when the tag values ``buf[a0:a1]`` and ``buf[b0:b1]`` are equal but for
    blanks (space, TAB) at their ends: a tag repeated with its own value is harmless."""
    while a0 < a1 and (buf[a0] == 32 or buf[a0] == 9):
        a0 += 1
    while a1 > a0 and (buf[a1 - 1] == 32 or buf[a1 - 1] == 9):
        a1 -= 1
    while b0 < b1 and (buf[b0] == 32 or buf[b0] == 9):
        b0 += 1
    while b1 > b0 and (buf[b1 - 1] == 32 or buf[b1 - 1] == 9):
        b1 -= 1
    if a1 - a0 != b1 - b0:
        return False
    for q in range(a1 - a0):
        if buf[a0 + q] != buf[b0 + q]:
            return False
    return True


@jit
def _lines_between(buf, a, b):
    """Line ends (LF, CRLF or a lone CR) in ``buf[a:b]``."""
    count = 0
    for q in range(a, b):
        if buf[q] == 10:
            count += 1
        elif buf[q] == 13 and not (q + 1 < b and buf[q + 1] == 10):
            count += 1
    return count


@jit
def _close_game(buf, row):
    """The game's MARKER code: its first marker's (``FIRST``), else that of its last
    text outside comments (a marker glued to a move, ``Qf7#1-0``, or left in an
    unclosed variation, as before the first marker ended a game)."""
    if row[FIRST] >= 0:
        row[MARKER] = _line_marker(buf, row[FIRST], row[FIRST + 1])
    elif row[LAST] >= 0:
        row[MARKER] = _line_marker(buf, row[LAST], row[LAST + 1])


@jit
def _whole_comment(buf, a, b):
    """True when the stripped line ``buf[a:b]`` is one ``{ }`` comment: it starts with
    ``{`` and its first ``}`` is its last byte."""
    if buf[a] != 123 or buf[b - 1] != 125:
        return False
    for q in range(a + 1, b - 1):
        if buf[q] == 125:
            return False
    return True


@jit
def _skip_ws(buf, c, b):
    while c < b:
        x = buf[c]
        if x == 32:  # the common cases without the call
            c += 1
            continue
        if x < 128 and (x < 9 or x > 13):
            break
        w = _ws_fwd(buf, c, b)
        if w == 0:
            break
        c += w
    return c


@jit
def _tag_pairs(buf, a, b):
    """The tag pairs ``[Key "value"]`` of the stripped line ``buf[a:b]``: (pairs, count,
    well-formed), ``pairs[i]`` the key's start and length and the value's start and end
    of the i-th pair, in line order, up to the first malformed one. The key starts
    after the ``[`` and any White_Space (the PGN Standard's tokens may stand apart,
    §8.1.1: ``[ White "Réti" ]``) and runs to White_Space or '"'; the value ends at the first '"' followed (after White_Space) by
    ']' and then by the end of the line or the next '[': so a value may hold unescaped
    quotes, and one line may hold several pairs."""
    pairs = np.empty(((b - a) // 4 + 1, 4), np.int64)  # a pair takes at least 4 bytes
    count = 0
    p = a
    while p < b:
        if buf[p] != 91:
            return pairs, count, False
        k0 = _skip_ws(buf, p + 1, b)
        s = k0
        while s < b:
            x = buf[s]
            if x == 34 or x == 32 or (x >= 9 and x <= 13):
                break
            if x >= 128 and _ws_fwd(buf, s, b) > 0:
                break
            s += 1
        c = _skip_ws(buf, s, b)
        if s == k0 or c >= b or buf[c] != 34:
            return pairs, count, False
        end = -1
        nxt = b
        q = c + 1
        while q < b:
            if buf[q] == 34:
                r = _skip_ws(buf, q + 1, b)
                if r < b and buf[r] == 93:
                    t = _skip_ws(buf, r + 1, b)
                    if t == b or buf[t] == 91:
                        end = q
                        nxt = t
                        break
            q += 1
        if end < 0:
            return pairs, count, False
        pairs[count, 0] = k0
        pairs[count, 1] = s - k0
        pairs[count, 2] = c + 1
        pairs[count, 3] = end
        count += 1
        p = nxt
    return pairs, count, True


@jit
def _scan(buf, start, stop, names, name_len):
    """One pass over the UTF-8 bytes ``buf[start:stop]`` of a PGN file (the rules of
    ``read_pgn``); ``start`` and ``stop`` are line starts (or the file's ends), and the
    part is read as if it began the file, except that line numbers count from 1 at
    ``start`` and byte positions stay the file's (pipeline/pgn.py reads a large file
    in parts on several threads and joins them, docs/pgn-trf.md "Reading speed").

    Lines end at LF, CRLF or CR; each is stripped of White_Space (and of byte-order
    marks at its start); blank lines and
    ``%`` escape lines are skipped, and so are, between a game's tags, ``;`` comment
    lines and lines that are one ``{ }`` comment. A game starts at a tag line after a
    non-tag line (or at the first tag line) or at an ``[Event `` line when the game's tags already
    hold one (a header-only game before it; tags in any order, PGN Standard §8.1,
    so an Event tag after the others is the same game's). Returns one row per game
    (layout ``LINE`` ... ``VALUES``: first line, first malformed tag line, has a
    move outside comments, termination marker, byte range of the last movetext line
    holding text outside comments (up to the end of that text), the first wanted tag
    given again with another value (its lines, index and other value) and the byte
    range of the first value of each wanted tag) and ``pre``: lines of text
    before the first tag, the first one's line and byte range, the first kept line
    and the number of tag lines; then the state at ``stop`` (a ``{`` comment open,
    the last kept line a tag line, the current game's tags hold an ``[Event`` line,
    the number of lines read).

    Speed: on the common path no helper that takes an array is called per line (the
    next-line step, the blanks' checks and the keeping of a tag's value are written
    here, and the game's row is indexed, not viewed): each such call costs a pair of
    atomic reference-count updates (Numba's NRT), which took half the scan's time on
    KingBase (docs/pgn-trf.md "Reading speed")."""
    n = buf.size
    ntag = names.shape[0]
    width = VALUES + 2 * ntag
    games = np.empty(((stop - start) // 2048 + 16, width), np.int64)
    nt = 0
    g = 0
    prev_tag = False
    seen_event = False  # the current game's tags hold an [Event line
    pre_n = 0
    pre_line = -1
    pre_a = 0
    pre_b = 0
    first_kept = -1
    line = 0
    i = start
    # the file's end is read as one more (empty) line, as a file ending without a
    # line break needs; a part that stops at a line start stops before it
    last = stop if stop < n else n + 1
    in_comment = False  # inside a { } comment that runs over several lines
    brace_at = -1  # _next_brace's last answer
    pairs = np.empty((1, 4), np.int64)  # a tag line's pairs (key, key length, value range)
    while i < last:
        if g > 0 and not in_comment and i < n and _MOVETEXT_START[buf[i]]:
            # a movetext line (it starts with a letter or digit): split, read outside
            # its comments and its moves digested in one walk
            i, lines, in_comment, brace_at = _movetext(
                buf, i, n, False, games, g - 1, brace_at, True
            )
            line += lines
            prev_tag = False
            continue
        j = i
        closes = 0  # ']' on the line
        while j < n:
            k = _BYTE_KIND[buf[j]]  # one look-up per byte
            if k != 0:
                if k == 1:
                    break
                closes += 1
            j += 1
        line += 1
        a, b = i, j
        i = j + 2 if (j + 1 < n and buf[j] == 13 and buf[j + 1] == 10) else j + 1
        while a < b and not _PRINTABLE[buf[a]]:
            w = _ws_fwd(buf, a, b)
            if w == 0 and b - a >= 3 and buf[a] == 0xEF and buf[a + 1] == 0xBB:
                # a byte-order mark inside the file (files joined with cat, each with
                # its own BOM): dropped like the blanks, so its tag line stays one
                w = 3 if buf[a + 2] == 0xBF else 0
            if w == 0:
                break
            a += w
        while b > a and not _PRINTABLE[buf[b - 1]]:
            w = _ws_back(buf, b, a)
            if w == 0:
                break
            b -= w
        if a == b or buf[a] == 37:  # blank or a '%' escape line
            continue
        if prev_tag and (buf[a] == 59 or _whole_comment(buf, a, b)):
            # a ';' comment line, or a line that is one '{ }' comment, between a game's
            # tags (PGN Standard §5): skipped as a '%' line is, the tag section goes on
            continue
        if first_kept < 0:
            first_kept = line
        if buf[a] != 91 or in_comment:  # movetext (or text before the first tag)
            prev_tag = False
            if g == 0:
                if pre_n == 0:
                    pre_line = line
                    pre_a = a
                    pre_b = b
                pre_n += 1
                continue
            _, _, in_comment, brace_at = _movetext(
                buf, a, b, in_comment, games, g - 1, brace_at, False
            )
            continue
        event = (
            b - a >= 7
            and buf[a + 1] | 32 == 101  # E or e (any case, as the other tag names)
            and buf[a + 2] | 32 == 118  # v
            and buf[a + 3] | 32 == 101  # e
            and buf[a + 4] | 32 == 110  # n
            and buf[a + 5] | 32 == 116  # t
            and buf[a + 6] == 32
        )
        if (event and seen_event) or not prev_tag:
            seen_event = False
            if g > 0:
                _close_game(buf, games[g - 1])
            if g == games.shape[0]:
                bigger = np.empty((2 * g, width), np.int64)
                bigger[:g] = games
                games = bigger
            games[g, :] = -1
            games[g, LINE] = line
            games[g, MOVE] = 0
            games[g, MARKER] = 0
            games[g, DIGEST] = NO_MOVES
            games[g, DEPTH] = 0
            g += 1
        prev_tag = True
        seen_event = seen_event or event
        nt += 1
        r = g - 1
        # [Key "value"]: with one ']' on the line (export format), the key runs to the
        # first blank and the value, after White_Space, starts with '"' and ends with
        # '"]'. Any other line goes to _tag_pairs (several pairs on a line, blanks
        # inside the brackets), which says whether it is malformed.
        s = a + 1
        while s < b and buf[s] != 32:
            s += 1
        c = b
        if s < b:
            c = s + 1 if (s + 1 >= b or buf[s + 1] == 34) else _skip_ws(buf, s + 1, b)
        if closes == 1 and b - c >= 3 and buf[c] == 34 and buf[b - 2] == 34 and buf[b - 1] == 93:
            pairs[0, 0] = a + 1
            pairs[0, 1] = s - a - 1
            pairs[0, 2] = c + 1
            pairs[0, 3] = b - 2
            count = 1
        else:
            pairs, count, ok = _tag_pairs(buf, a, b)
            if not ok and games[r, BAD] < 0:
                games[r, BAD] = line
        # each pair's value is kept when its name is wanted and has no value yet (the
        # first counts)
        for p in range(count):
            key, klen = pairs[p, 0], pairs[p, 1]
            for k in range(ntag):
                if name_len[k] != klen:
                    continue
                same = True
                folded = False
                for m in range(klen):
                    # ASCII case folded (| 32): `[white "…"]` is White (docs/pgn-trf.md);
                    # the wanted names are letters, which no other byte folds onto
                    if buf[key + m] | 32 != names[k, m] | 32:
                        same = False
                        break
                    folded = folded or buf[key + m] != names[k, m]
                if same:
                    if folded:
                        games[r, CASE] = 1
                    first = games[r, VALUES + 2 * k]
                    if first < 0:
                        games[r, VALUES + 2 * k] = pairs[p, 2]
                        games[r, VALUES + 2 * k + 1] = pairs[p, 3]
                    elif games[r, REPEAT] < 0 and not _same_value(
                        buf, first, games[r, VALUES + 2 * k + 1], pairs[p, 2], pairs[p, 3]
                    ):
                        # the same tag again with another value: the first is kept, and
                        # the game is quarantined naming both lines (pipeline/pgn.py)
                        games[r, REPEAT] = line
                        games[r, REPEAT_FIRST] = line - _lines_between(buf, first, a)
                        games[r, REPEAT_TAG] = k
                        games[r, REPEAT_VALUE] = pairs[p, 2]
                        games[r, REPEAT_VALUE + 1] = pairs[p, 3]
                    break
    if g > 0:
        _close_game(buf, games[g - 1])
    pre = np.array(
        [pre_n, pre_line, pre_a, pre_b, first_kept, nt, in_comment, prev_tag, seen_event, line],
        np.int64,
    )
    return games[:g], pre


@jit
def _gather(buf, games, col0, ncol):
    """Bytes and Arrow offsets of the byte ranges in columns ``col0, col0 + 2, ...`` of
    ``games`` (start, end pairs; start < 0: empty), column after column. Copied in
    file order (game after game) so that ``buf`` is read once, front to back."""
    g = games.shape[0]
    off = np.empty(ncol * g + 1, np.int64)
    off[0] = 0
    for r in range(g):
        for k in range(ncol):
            s = games[r, col0 + 2 * k]
            off[k * g + r + 1] = games[r, col0 + 2 * k + 1] - s if s >= 0 else 0
    for q in range(1, ncol * g + 1):
        off[q] += off[q - 1]
    out = np.empty(off[ncol * g], np.uint8)
    for r in range(g):
        for k in range(ncol):
            s = games[r, col0 + 2 * k]
            if s >= 0:
                p = off[k * g + r]
                for q in range(games[r, col0 + 2 * k + 1] - s):
                    out[p + q] = buf[s + q]
    return out, off


def scan_pgn(
    buf: np.ndarray, names: np.ndarray, name_len: np.ndarray, start: int = 0, stop: int = -1
):
    """(games, state) of the PGN bytes ``buf[start:stop]`` (``stop`` -1: the file's end);
    see ``_scan``. ``state`` holds ``_scan``'s ten numbers: the preamble's six, then the
    state at ``stop`` (pipeline/pgn.py reads a large file in parts with it)."""
    if buf.dtype != np.uint8 or buf.ndim != 1:
        raise ValueError("buf must be a 1-D uint8 array")
    if names.dtype != np.uint8 or names.ndim != 2 or name_len.shape != (names.shape[0],):
        raise ValueError("names must be a 2-D uint8 array with one length per row")
    stop = buf.size if stop < 0 else stop
    if not 0 <= start <= stop <= buf.size:
        raise ValueError(f"a part {start}..{stop} outside the {buf.size} bytes")
    return _scan(buf, int(start), int(stop), names, np.ascontiguousarray(name_len, np.int64))


def gather_ranges(buf: np.ndarray, games: np.ndarray, col0: int, ncol: int):
    """Bytes and Arrow offsets of the (start, end) ranges in columns col0, col0+2, ...; see ``_gather``."""
    if games.dtype != np.int64 or games.ndim != 2 or col0 + 2 * ncol > games.shape[1]:
        raise ValueError("games must be an int64 scan result with the requested columns")
    return _gather(buf, games, int(col0), int(ncol))
