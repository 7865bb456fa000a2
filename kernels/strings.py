"""Exact lookups of strings in a set of strings, on Arrow's string buffers.

``pyarrow.compute.index_in`` builds a hash table of the value set on every call and
probes it at ~200-300 ns per string here (1M player ids against 200k: 0.2-0.3 s). A
streamed ingest looks up every game's two ids against the same dictionary slice after
slice (pipeline/keys.py), and a rating run maps the whole dictionary to its players
once; both now go through ``StringIndex``: the set's table is built once and kept,
and a probe is a 64-bit hash (FNV-1a over the UTF-8 bytes, then splitmix64's
finaliser) and one slot of an open-addressing table (linear probing, at most half
full). Every match is then compared byte for byte in a pass of its own (independent
reads, which the CPU overlaps; inside the probe they were a chain of four waits on
memory, ~100 ns a lookup); a 64-bit hash shared by two different strings sends the
caller back to ``pyarrow.compute.index_in``, so a lookup is always exact.

A string is given by ``offsets[i]:offsets[i + 1]`` into ``data`` (Arrow's int32
offsets and data buffer, read where they lie, no copy). The first of equal strings in
the set wins, as with ``index_in``.
"""

import numpy as np

from arpad.kernels.config import jit

_FNV_OFFSET = 14695981039346656037
_FNV_PRIME = 1099511628211


@jit
def _hashes(offsets, data):
    n = offsets.shape[0] - 1
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        h = np.uint64(_FNV_OFFSET)
        for j in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[j])) * np.uint64(_FNV_PRIME)
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
        out[i] = h
    return out


@jit
def _build(hashes, offsets, data, bits):
    """The table: ``slot_hash`` and ``slot`` (-1 empty, else an index into the set).
    Equal strings keep the first; ``ok`` is False when two different strings of the
    set share a 64-bit hash (then the table is not used)."""
    size = np.int64(1) << bits
    mask = np.uint64(size - 1)
    slot = np.full(size, -1, dtype=np.int32)
    slot_hash = np.zeros(size, dtype=np.uint64)
    ok = True
    for i in range(hashes.shape[0]):
        h = hashes[i]
        s = np.int64(h & mask)
        while True:
            k = slot[s]
            if k < 0:
                slot[s] = i
                slot_hash[s] = h
                break
            if slot_hash[s] == h:
                length = offsets[i + 1] - offsets[i]
                same = offsets[k + 1] - offsets[k] == length
                if same:
                    a0 = offsets[i]
                    b0 = offsets[k]
                    for j in range(length):
                        if data[a0 + j] != data[b0 + j]:
                            same = False
                            break
                if not same:
                    ok = False
                break
            s = (s + 1) & (size - 1)
    return slot_hash, slot, ok


@jit
def _lookup(slot_hash, slot, hashes):
    """The set index of every string by its hash (-1 when no entry has it). The slot's
    hash and index sit in two arrays read at the same place, so a probe waits for
    memory once; ``_verify`` then checks the strings themselves."""
    size = slot.shape[0]
    mask = np.uint64(size - 1)
    n = hashes.shape[0]
    out = np.empty(n, dtype=np.int32)
    for i in range(n):
        h = hashes[i]
        s = np.int64(h & mask)
        found = -1
        while True:
            k = slot[s]
            if k < 0:
                break
            if slot_hash[s] == h:
                found = k
                break
            s = (s + 1) & (size - 1)
        out[i] = found
    return out


@jit
def _verify(found, set_offsets, set_data, offsets, data):
    """True when every string found is byte for byte its set entry (False: a 64-bit
    hash shared by two different strings, then the caller looks up exactly)."""
    for i in range(found.shape[0]):
        k = found[i]
        if k < 0:
            continue
        a0 = offsets[i]
        b0 = set_offsets[k]
        length = offsets[i + 1] - a0
        if set_offsets[k + 1] - b0 != length:
            return False
        for j in range(length):
            if data[a0 + j] != set_data[b0 + j]:
                return False
    return True
