"""The fingerprint of a log and proofs about it (docs/fingerprints.md).

The fingerprint is the RFC 6962 / RFC 9162 Merkle tree hash, SHA-256, over the
canonical encodings of the events in order. A Merkle tree lets one event be
shown to belong to a fingerprinted log with a proof of about log2(n) hashes
(``prove`` / ``verify-proof``), and lets the archive show that a longer log of
an unfinished game extends an earlier one without changing it (consistency).

Pure: no I/O, only :mod:`hashlib` and :mod:`json`.

>>> from yaniv_audit.core.canonical import canonical_bytes, normalize_event
>>> note = {"type": "note", "text": "a"}
>>> throw = {"type": "discard", "player": "dana", "cards": ["10h"]}
>>> leaves = [canonical_bytes(normalize_event(e)) for e in (note, throw)]
>>> leaves[1]
b'{"cards":["TH"],"player":"dana","type":"discard"}'
>>> root = tree_hash(leaves)
>>> root == node_hash(leaf_hash(leaves[0]), leaf_hash(leaves[1]))
True
>>> tree_hash([]).hex()[:16]
'e3b0c44298fc1c14'
>>> path = inclusion_path(leaves, 1)
>>> root_from_inclusion(leaf_hash(leaves[1]), 1, 2, path) == root
True
>>> proof = json.dumps(make_proof(leaves, 0))
>>> verify_proof(proof, root.hex())
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from .canonical import canonical_bytes, normalize_event
from .errors import YanivAuditError

__all__ = [
    "HASH_SIZE",
    "ProofError",
    "TreeHasher",
    "consistency_path",
    "inclusion_path",
    "is_consistency_proof",
    "leaf_hash",
    "make_consistency_proof",
    "make_proof",
    "node_hash",
    "root_from_inclusion",
    "tree_hash",
    "verify_consistency",
    "verify_consistency_proof",
    "verify_proof",
]

HASH_SIZE = 32
_sha256 = hashlib.sha256
_LEAF_PREFIX = b"\x00"
_NODE_PREFIX = b"\x01"
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
PROOF_FIELDS = ("fingerprint", "tree_size", "index", "event", "path")
CONSISTENCY_FIELDS = ("old_fingerprint", "old_size", "fingerprint", "tree_size", "path")


class ProofError(YanivAuditError):
    """A proof or a fingerprint that cannot even be checked (malformed input).

    A well-formed proof that does not lead to the fingerprint is not an error:
    :func:`verify_proof` returns False for it.
    """


# --- hashing ----------------------------------------------------------------


def leaf_hash(leaf: bytes) -> bytes:
    """SHA-256(0x00 || leaf): the prefix keeps a leaf from passing for a node."""
    return _sha256(_LEAF_PREFIX + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right)."""
    return _sha256(_NODE_PREFIX + left + right).digest()


#: SHA-256 already fed the leaf and the node prefix: copying one is cheaper than
#: hashing the prefix again (and than joining it to every leaf)
_LEAF_SEED = _sha256(_LEAF_PREFIX)
_NODE_SEED = _sha256(_NODE_PREFIX)


def _hash_leaves(leaves: Sequence[bytes]) -> list[bytes]:
    seed = _LEAF_SEED.copy
    hashes: list[bytes] = []
    append = hashes.append
    for leaf in leaves:
        h = seed()
        h.update(leaf)
        append(h.digest())
    return hashes


def _root_of_hashes(level: list[bytes]) -> bytes:
    """The Merkle tree hash over already hashed leaves, level by level.

    Pairing left to right and carrying an odd last node up unchanged builds
    exactly RFC 6962's tree (the left subtree is always the largest power of
    two), in O(n) hashes and without recursion.
    """
    if not level:
        return _sha256(b"").digest()
    seed = _NODE_SEED.copy
    while len(level) > 1:
        pairs = iter(level)
        above: list[bytes] = []
        append = above.append
        for left, right in zip(pairs, pairs, strict=False):  # drops an odd last one
            h = seed()
            h.update(left)
            h.update(right)
            append(h.digest())
        if len(level) % 2:
            append(level[-1])
        level = above
    return level[0]


def tree_hash(leaves: Sequence[bytes]) -> bytes:
    """MTH(leaves) of RFC 6962 section 2.1; the empty tree is SHA-256 of nothing."""
    return _root_of_hashes(_hash_leaves(leaves))


class TreeHasher:
    """:func:`tree_hash` of leaves given a batch at a time, holding no leaf: the hashes of
    at most :attr:`BLOCK` leaves, and the root of each full block of that many before
    them (perfect subtrees of RFC 6962's tree, as it splits at the largest power of two).

    >>> leaves = [b"%d" % n for n in range(10)]
    >>> hasher = TreeHasher(block=4)
    >>> hasher.extend(leaves[:3]); hasher.extend(leaves[3:])
    >>> hasher.root() == tree_hash(leaves), hasher.size
    (True, 10)
    """

    __slots__ = ("block", "blocks", "pending", "size")

    #: leaves a block (a power of two)
    BLOCK = 1 << 12

    def __init__(self, block: int = BLOCK) -> None:
        assert block > 0 and block & (block - 1) == 0, "a power of two"
        self.block = block
        #: the hashes of the leaves past the last full block
        self.pending: list[bytes] = []
        #: the roots of the perfect subtrees of the full blocks, largest first
        #: (a compact range: (size, root))
        self.blocks: list[tuple[int, bytes]] = []
        self.size = 0

    def extend(self, leaves: Sequence[bytes]) -> None:
        pending, block = self.pending, self.block
        pending += _hash_leaves(leaves)
        self.size += len(leaves)
        while len(pending) >= block:
            self._push(block, _root_of_hashes(pending[:block]))
            del pending[:block]

    def _push(self, size: int, root: bytes) -> None:
        blocks = self.blocks
        blocks.append((size, root))
        while len(blocks) > 1 and blocks[-1][0] == blocks[-2][0]:
            (_, right), (size, left) = blocks.pop(), blocks.pop()
            blocks.append((2 * size, node_hash(left, right)))

    def root(self) -> bytes:
        """The tree hash of every leaf given so far."""
        if not self.blocks:
            return _root_of_hashes(list(self.pending))
        root = _root_of_hashes(list(self.pending)) if self.pending else None
        for _, left in reversed(self.blocks):
            root = left if root is None else node_hash(left, root)
        assert root is not None
        return root


def _split(n: int) -> int:
    """The largest power of two smaller than n (n >= 2): RFC 6962's k."""
    return 1 << ((n - 1).bit_length() - 1)


# --- inclusion (RFC 9162 section 2.1.3) ---------------------------------------


def _inclusion_from_hashes(hashes: list[bytes], index: int) -> list[bytes]:
    # PATH(m, D[lo:hi]) walked top-down; the siblings come out root first.
    path: list[bytes] = []
    lo, hi = 0, len(hashes)
    while hi - lo > 1:
        k = _split(hi - lo)
        if index < lo + k:
            path.append(_root_of_hashes(hashes[lo + k : hi]))
            hi = lo + k
        else:
            path.append(_root_of_hashes(hashes[lo : lo + k]))
            lo += k
    path.reverse()
    return path


def inclusion_path(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The audit path of leaf ``index``: sibling hashes from the leaf up."""
    if not 0 <= index < len(leaves):
        raise IndexError(f"leaf index {index} is not in a tree of {len(leaves)} leaves")
    return _inclusion_from_hashes(_hash_leaves(leaves), index)


def root_from_inclusion(
    leaf_hash: bytes, index: int, tree_size: int, path: Sequence[bytes]
) -> bytes:
    """The root that ``path`` leads to from ``leaf_hash`` (RFC 9162 2.1.3.2).

    Raises ValueError when the path cannot belong to a leaf at ``index`` of a
    tree of ``tree_size`` (index out of range, path too short or too long):
    such a proof proves nothing.
    """
    if not 0 <= index < tree_size:
        raise ValueError(f"leaf index {index} is not in a tree of {tree_size} leaves")
    fn, sn, r = index, tree_size - 1, leaf_hash
    for p in path:
        if sn == 0:
            raise ValueError("the path is longer than the tree is high")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ValueError("the path is shorter than the tree is high")
    return r


# --- consistency (RFC 9162 section 2.1.4) -------------------------------------


def consistency_path(leaves: Sequence[bytes], old_size: int) -> list[bytes]:
    """The proof that the first ``old_size`` leaves are a prefix of ``leaves``.

    Empty when ``old_size`` is 0 or the whole tree (nothing to prove).
    """
    n = len(leaves)
    if not 0 <= old_size <= n:
        raise ValueError(f"old size {old_size} is not between 0 and {n}")
    if old_size in (0, n):
        return []
    hashes = _hash_leaves(leaves)
    # SUBPROOF(m, D[lo:hi], b) of RFC 6962 2.1.2, unrolled; collected root first.
    out: list[bytes] = []
    lo, hi, m, complete = 0, n, old_size, True
    while m != hi - lo:
        k = _split(hi - lo)
        if m <= k:
            out.append(_root_of_hashes(hashes[lo + k : hi]))
            hi = lo + k
        else:
            out.append(_root_of_hashes(hashes[lo : lo + k]))
            lo, m, complete = lo + k, m - k, False
    if not complete:
        out.append(_root_of_hashes(hashes[lo:hi]))
    out.reverse()
    return out


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, path: Sequence[bytes]
) -> bool:
    """Whether ``path`` proves the tree ``new_root`` extends ``old_root`` (RFC 9162 2.1.4.2)."""
    if old_size < 0 or new_size < 0 or old_size > new_size:
        return False
    if old_size == new_size:
        return not path and old_root == new_root
    if old_size == 0:
        return not path  # the empty tree is a prefix of every tree
    if not path:
        return False
    nodes = list(path)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is a node
        nodes.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = nodes[0]
    for c in nodes[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


# --- proofs of one event -------------------------------------------------------


def make_proof(leaves: Sequence[bytes], index: int) -> dict[str, Any]:
    """The inclusion proof of event ``index``, as ``prove`` prints it.

    ``event`` is the leaf itself as a JSON object, so the proof carries the
    canonical event (cards already in canonical form).
    """
    if not 0 <= index < len(leaves):
        raise IndexError(f"event index {index} is not in a log of {len(leaves)} events")
    hashes = _hash_leaves(leaves)
    path = _inclusion_from_hashes(hashes, index)
    root = root_from_inclusion(hashes[index], index, len(leaves), path)
    return {
        "fingerprint": root.hex(),
        "tree_size": len(leaves),
        "index": index,
        "event": json.loads(leaves[index]),
        "path": [p.hex() for p in path],
    }


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _hash_field(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise ProofError(f"{what}: expected a string of 64 hex digits, got {_short(value)}")
    text = value.strip()
    if len(text) != 2 * HASH_SIZE or not set(text) <= _HEX_DIGITS:
        raise ProofError(f"{what}: expected 64 hex digits, got {_short(value)}")
    return bytes.fromhex(text)


def _int_field(proof: dict[str, Any], name: str, minimum: int) -> int:
    value = proof[name]
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ProofError(
            f"proof field {name!r}: expected an integer >= {minimum}, got {_short(value)}"
        )
    return value


def _path_field(proof: dict[str, Any]) -> list[bytes]:
    raw_path = proof["path"]
    if not isinstance(raw_path, list):
        raise ProofError(
            f"proof field 'path': expected a list of 64-hex-digit hashes, got {_short(raw_path)}"
        )
    return [_hash_field(p, f"proof field 'path' item {i}") for i, p in enumerate(raw_path)]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_proof(data: bytes | str, fields: tuple[str, ...] = PROOF_FIELDS) -> dict[str, Any]:
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ProofError(f"the proof is not UTF-8 text (byte {exc.start})") from None
    try:
        proof = json.loads(data, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ProofError(f"the proof is not JSON: {str(exc).splitlines()[0]}") from None
    if not isinstance(proof, dict):
        raise ProofError(f"the proof: expected a JSON object with fields {', '.join(fields)}")
    missing = [name for name in fields if name not in proof]
    if missing:
        noun = "field" if len(missing) == 1 else "fields"
        raise ProofError(f"the proof has no {noun} {', '.join(map(repr, missing))}")
    return proof


def make_consistency_proof(leaves: Sequence[bytes], old_size: int) -> dict[str, Any]:
    """The proof that the log's first ``old_size`` events are, unchanged, the log
    whose fingerprint was taken then (an unfinished game, extended later)."""
    if not 1 <= old_size <= len(leaves):
        raise IndexError(f"old size {old_size} is not between 1 and {len(leaves)}")
    return {
        "old_fingerprint": tree_hash(leaves[:old_size]).hex(),
        "old_size": old_size,
        "fingerprint": tree_hash(leaves).hex(),
        "tree_size": len(leaves),
        "path": [p.hex() for p in consistency_path(leaves, old_size)],
    }


def is_consistency_proof(data: bytes | str) -> bool:
    """Whether ``data`` looks like a consistency proof (else: an inclusion proof)."""
    try:
        proof = json.loads(data)
    except (ValueError, RecursionError):
        return False
    return isinstance(proof, dict) and "old_size" in proof


def verify_consistency_proof(data: bytes | str, old_fingerprint_hex: str) -> bool:
    """Whether the proof in ``data`` shows its log extends, unchanged, the log
    ``old_fingerprint_hex`` (the fingerprint the user trusts, taken earlier).

    Raises :class:`ProofError` for input that is not a consistency proof.
    """
    trusted = _hash_field(old_fingerprint_hex, "--fingerprint")
    proof = _parse_proof(data, CONSISTENCY_FIELDS)
    old = _hash_field(proof["old_fingerprint"], "proof field 'old_fingerprint'")
    new = _hash_field(proof["fingerprint"], "proof field 'fingerprint'")
    old_size = _int_field(proof, "old_size", 1)
    tree_size = _int_field(proof, "tree_size", 1)
    if old_size > tree_size:
        raise ProofError(
            f"proof field 'old_size': expected at most tree_size {tree_size}, got {old_size}"
        )
    path = _path_field(proof)
    return old == trusted and verify_consistency(old_size, tree_size, old, new, path)


def verify_proof(data: bytes | str, fingerprint_hex: str) -> bool:
    """Whether the proof in ``data`` shows its event is in the log ``fingerprint_hex``.

    The leaf is recomputed from the proof's ``event`` (so a changed event
    fails), and the proof's own ``fingerprint`` must be the trusted one too.

    What is proved is that the event is in that log. Like any RFC 9162 proof
    checked against a bare root, ``tree_size`` and ``index`` are only checked
    to fit the path: the root does not commit to the tree's size, and some
    paths fit more than one (index, size) pair. An event with ``seq`` pins
    its own position, so a proof whose ``index`` differs from it is invalid.
    Raises :class:`ProofError` for input that is not a proof at all or a
    fingerprint that is not 64 hex digits; unknown extra fields are ignored.
    """
    trusted = _hash_field(fingerprint_hex, "--fingerprint")
    proof = _parse_proof(data)
    claimed = _hash_field(proof["fingerprint"], "proof field 'fingerprint'")
    tree_size = _int_field(proof, "tree_size", 1)
    index = _int_field(proof, "index", 0)
    if index >= tree_size:
        raise ProofError(
            f"proof field 'index': expected an integer below tree_size {tree_size}, got {index}"
        )
    event = proof["event"]
    if not isinstance(event, dict):
        raise ProofError(f"proof field 'event': expected a JSON object, got {_short(event)}")
    path = _path_field(proof)
    try:
        leaf = canonical_bytes(normalize_event(event))
    except UnicodeEncodeError:
        raise ProofError("proof field 'event': holds text that is not valid Unicode") from None
    if claimed != trusted:
        return False
    if "seq" in event and (type(event["seq"]) is not int or event["seq"] != index):
        return False  # the event itself says it sits elsewhere
    try:
        root = root_from_inclusion(leaf_hash(leaf), index, tree_size, path)
    except ValueError:
        return False  # a path of the wrong length for index and tree_size
    return root == trusted
