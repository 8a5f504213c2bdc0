"""The fingerprint's Merkle tree against the published RFC 6962 vectors, and its properties."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from yaniv_audit.core.canonical import canonical_bytes, normalize_event
from yaniv_audit.core.errors import YanivAuditError
from yaniv_audit.core.merkle import (
    ProofError,
    consistency_path,
    inclusion_path,
    leaf_hash,
    make_proof,
    node_hash,
    root_from_inclusion,
    tree_hash,
    verify_consistency,
    verify_proof,
)

# --- reference vectors -------------------------------------------------------
# The Certificate Transparency / Trillian test vectors: leaf inputs, roots for
# sizes 0..8 and node hashes from google/trillian merkle/testonly/constants.go;
# inclusion and consistency proofs from transparency-dev/merkle
# proof/verify_test.go (inclusionProofs / consistencyProofs; there the leaf
# number is 1-based, here ``index`` is 0-based).

LEAVES = [
    bytes.fromhex(h)
    for h in [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
]

ROOTS = [  # indexed by tree size
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]

LEAF_HASHES = [  # NodeHashes()[0]
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
    "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
    "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
    "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
]

INCLUSION = [  # (index, tree size, path)
    (0, 1, []),
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        3,
        [
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        ],
    ),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]

CONSISTENCY = [  # (old size, new size, path)
    (1, 1, []),
    (
        1,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
    (
        6,
        7,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
]

SOME_HASH = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")
EMPTY_ROOT = bytes.fromhex(ROOTS[0])


def _h(hexes: Sequence[str]) -> list[bytes]:
    return [bytes.fromhex(x) for x in hexes]


def _includes(leaf: bytes, index: int, size: int, path: Sequence[bytes], root: bytes) -> bool:
    """Inclusion verification as a yes/no (a path of the wrong shape is a no)."""
    try:
        return root_from_inclusion(leaf, index, size, path) == root
    except ValueError:
        return False


# --- the vectors ---------------------------------------------------------------


def test_empty_tree_is_sha256_of_nothing() -> None:
    assert tree_hash([]) == hashlib.sha256(b"").digest() == EMPTY_ROOT


@pytest.mark.parametrize("size", range(1, 9))
def test_root_of_first_n_leaves(size: int) -> None:
    assert tree_hash(LEAVES[:size]).hex() == ROOTS[size]


@pytest.mark.parametrize("i", range(8))
def test_leaf_hashes(i: int) -> None:
    assert leaf_hash(LEAVES[i]).hex() == LEAF_HASHES[i]


def test_node_hash_of_first_two_leaves() -> None:
    assert node_hash(bytes.fromhex(LEAF_HASHES[0]), bytes.fromhex(LEAF_HASHES[1])).hex() == ROOTS[2]


@pytest.mark.parametrize(("index", "size", "path"), INCLUSION)
def test_inclusion_vectors(index: int, size: int, path: list[str]) -> None:
    assert [p.hex() for p in inclusion_path(LEAVES[:size], index)] == path
    leaf = leaf_hash(LEAVES[index])
    assert root_from_inclusion(leaf, index, size, _h(path)).hex() == ROOTS[size]


@pytest.mark.parametrize(("index", "size", "path"), [v for v in INCLUSION if v[2]])
def test_corrupted_inclusion_vectors_fail(index: int, size: int, path: list[str]) -> None:
    """The probes of transparency-dev/merkle's corruptInclusionProof."""
    root, leaf, good = bytes.fromhex(ROOTS[size]), leaf_hash(LEAVES[index]), _h(path)
    assert _includes(leaf, index, size, good, root)
    probes: list[tuple[bytes, int, int, list[bytes], bytes]] = [
        (leaf, index - 1, size, good, root),
        (leaf, index + 1, size, good, root),
        (leaf, index ^ 2, size, good, root),
        (leaf, index, size * 2, good, root),
        (leaf, index, size // 2, good, root),
        (b"WrongLeaf", index, size, good, root),
        (leaf, index, size, good, EMPTY_ROOT),
        (leaf, index, size, good, SOME_HASH),
        (leaf, index, size, [*good, b""], root),
        (leaf, index, size, [*good, root], root),
        (leaf, index, size, [b"", *good], root),
        (leaf, index, size, [root, *good], root),
        (leaf, index, size, good[:-1], root),
    ]
    if len(good) > 1:
        probes.append((leaf, index, size, [good[0], SOME_HASH, *good[1:]], root))
    for k in range(len(good)):
        flipped = list(good)
        flipped[k] = bytes([flipped[k][0] ^ 8]) + flipped[k][1:]
        probes.append((leaf, index, size, flipped, root))
    passed = [n for n, probe in enumerate(probes) if _includes(*probe)]
    assert passed == []


def test_inclusion_of_single_entry() -> None:
    leaf = leaf_hash(b"data")
    assert _includes(leaf, 0, 1, [], leaf)
    assert not _includes(b"", 0, 1, [], leaf)
    assert not _includes(leaf, 0, 1, [], b"")


@pytest.mark.parametrize(("index", "size"), [(0, 0), (1, 0), (2, 1), (-1, 3)])
def test_inclusion_out_of_range(index: int, size: int) -> None:
    with pytest.raises(ValueError, match="not in a tree"):
        root_from_inclusion(SOME_HASH, index, size, [])
    with pytest.raises(IndexError):
        inclusion_path(LEAVES[:size], index)


@pytest.mark.parametrize(("old", "new", "path"), CONSISTENCY)
def test_consistency_vectors(old: int, new: int, path: list[str]) -> None:
    assert [p.hex() for p in consistency_path(LEAVES[:new], old)] == path
    old_root, new_root = bytes.fromhex(ROOTS[old]), bytes.fromhex(ROOTS[new])
    assert verify_consistency(old, new, old_root, new_root, _h(path))


@pytest.mark.parametrize(("old", "new", "path"), [v for v in CONSISTENCY if v[2]])
def test_corrupted_consistency_vectors_fail(old: int, new: int, path: list[str]) -> None:
    """The probes of transparency-dev/merkle's corruptConsistencyProof."""
    r1, r2, good = bytes.fromhex(ROOTS[old]), bytes.fromhex(ROOTS[new]), _h(path)
    probes: list[tuple[int, int, bytes, bytes, list[bytes]]] = [
        (old - 1, new, r1, r2, good),
        (old + 1, new, r1, r2, good),
        (old ^ 2, new, r1, r2, good),
        (old, new * 2, r1, r2, good),
        (old, new // 2, r1, r2, good),
        (old, new, b"WrongRoot", r2, good),
        (old, new, r1, b"WrongRoot", good),
        (old, new, r2, r1, good),
        (old, new, r1, r2, []),
        (old, new, r1, r2, [*good, b""]),
        (old, new, r1, r2, [*good, r1]),
        (old, new, r1, r2, [*good, r2]),
        (old, new, r1, r2, [b"", *good]),
        (old, new, r1, r2, [r1, *good]),
        (old, new, r1, r2, [r2, *good]),
        (old, new, r1, r2, [good[0], *good]),
        (old, new, r1, r2, good[:-1]),
    ]
    for k in range(len(good)):
        flipped = list(good)
        flipped[k] = bytes([flipped[k][0] ^ 16]) + flipped[k][1:]
        probes.append((old, new, r1, r2, flipped))
    passed = [n for n, probe in enumerate(probes) if verify_consistency(*probe)]
    assert passed == []


R1, R2 = b"don't care 1", b"don't care 2"


@pytest.mark.parametrize(
    ("old", "new", "old_root", "new_root", "path", "ok"),
    [
        (0, 0, R1, R2, [], False),
        (1, 1, R1, R2, [], False),
        (0, 0, R1, R1, [], True),
        (0, 1, R1, R2, [], True),
        (1, 1, R2, R2, [], True),
        (1, 0, R1, R2, [], False),
        (2, 1, R1, R2, [], False),
        (1, 2, R1, R2, [], False),
        (0, 0, EMPTY_ROOT, R2, [], False),
        (1, 1, EMPTY_ROOT, R2, [], False),
        (0, 0, EMPTY_ROOT, EMPTY_ROOT, [EMPTY_ROOT], False),
        (0, 1, EMPTY_ROOT, EMPTY_ROOT, [EMPTY_ROOT], False),
        (1, 1, EMPTY_ROOT, EMPTY_ROOT, [EMPTY_ROOT], False),
        (-1, 1, R1, R2, [], False),
    ],
)
def test_consistency_edge_cases(
    old: int, new: int, old_root: bytes, new_root: bytes, path: list[bytes], ok: bool
) -> None:
    """transparency-dev/merkle's TestVerifyConsistency table."""
    assert verify_consistency(old, new, old_root, new_root, path) is ok


def test_consistency_path_rejects_sizes_outside_the_tree() -> None:
    with pytest.raises(ValueError, match="size"):
        consistency_path(LEAVES[:3], 4)
    with pytest.raises(ValueError, match="size"):
        consistency_path(LEAVES[:3], -1)


# --- the definitions of RFC 6962 section 2.1, written recursively ----------------


def _k(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def ref_mth(d: Sequence[bytes]) -> bytes:
    if not d:
        return hashlib.sha256(b"").digest()
    if len(d) == 1:
        return hashlib.sha256(b"\x00" + d[0]).digest()
    k = _k(len(d))
    return hashlib.sha256(b"\x01" + ref_mth(d[:k]) + ref_mth(d[k:])).digest()


def ref_path(m: int, d: Sequence[bytes]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = _k(len(d))
    if m < k:
        return [*ref_path(m, d[:k]), ref_mth(d[k:])]
    return [*ref_path(m - k, d[k:]), ref_mth(d[:k])]


def ref_subproof(m: int, d: Sequence[bytes], complete: bool) -> list[bytes]:
    if m == len(d):
        return [] if complete else [ref_mth(d)]
    k = _k(len(d))
    if m <= k:
        return [*ref_subproof(m, d[:k], complete), ref_mth(d[k:])]
    return [*ref_subproof(m - k, d[k:], False), ref_mth(d[:k])]


trees = st.lists(st.binary(max_size=6), min_size=1, max_size=70)
distinct_trees = st.lists(st.binary(max_size=6), min_size=1, max_size=70, unique=True)


@given(st.lists(st.binary(max_size=6), max_size=70))
def test_tree_hash_is_rfc6962_mth(leaves: list[bytes]) -> None:
    assert tree_hash(leaves) == ref_mth(leaves)


@given(trees, st.data())
def test_every_inclusion_proof_verifies(leaves: list[bytes], data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(leaves) - 1), label="index")
    path = inclusion_path(leaves, index)
    assert path == ref_path(index, leaves)
    root = root_from_inclusion(leaf_hash(leaves[index]), index, len(leaves), path)
    assert root == tree_hash(leaves)


@given(trees, st.data())
def test_flipping_any_byte_of_the_path_fails(leaves: list[bytes], data: st.DataObject) -> None:
    assume(len(leaves) > 1)
    index = data.draw(st.integers(0, len(leaves) - 1), label="index")
    path = inclusion_path(leaves, index)
    k = data.draw(st.integers(0, len(path) - 1), label="element")
    at = data.draw(st.integers(0, 31), label="byte")
    bit = data.draw(st.integers(0, 7), label="bit")
    element = bytearray(path[k])
    element[at] ^= 1 << bit
    path[k] = bytes(element)
    assert not _includes(leaf_hash(leaves[index]), index, len(leaves), path, tree_hash(leaves))


@given(trees, st.data())
def test_a_changed_leaf_fails(leaves: list[bytes], data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(leaves) - 1), label="index")
    other = data.draw(st.binary(max_size=6).filter(lambda b: b != leaves[index]), label="leaf")
    path = inclusion_path(leaves, index)
    assert not _includes(leaf_hash(other), index, len(leaves), path, tree_hash(leaves))


@given(distinct_trees, st.data())
def test_a_wrong_index_fails(leaves: list[bytes], data: st.DataObject) -> None:
    # distinct leaves: with two equal leaves the same path may honestly prove both places
    assume(len(leaves) > 1)
    index = data.draw(st.integers(0, len(leaves) - 1), label="index")
    wrong = data.draw(st.integers(0, len(leaves) - 1).filter(lambda j: j != index), label="wrong")
    path = inclusion_path(leaves, index)
    assert not _includes(leaf_hash(leaves[index]), wrong, len(leaves), path, tree_hash(leaves))


@given(trees, st.data())
def test_every_consistency_proof_verifies(leaves: list[bytes], data: st.DataObject) -> None:
    old = data.draw(st.integers(0, len(leaves)), label="old size")
    path = consistency_path(leaves, old)
    if 0 < old < len(leaves):
        assert path == ref_subproof(old, leaves, True)
    old_root, new_root = tree_hash(leaves[:old]), tree_hash(leaves)
    assert verify_consistency(old, len(leaves), old_root, new_root, path)


@given(trees, st.data())
def test_a_tampered_consistency_proof_fails(leaves: list[bytes], data: st.DataObject) -> None:
    assume(len(leaves) > 1)
    old = data.draw(st.integers(1, len(leaves) - 1), label="old size")
    path = consistency_path(leaves, old)
    old_root, new_root = tree_hash(leaves[:old]), tree_hash(leaves)
    k = data.draw(st.integers(0, len(path) - 1), label="element")
    at = data.draw(st.integers(0, 31), label="byte")
    element = bytearray(path[k])
    element[at] ^= 0xFF
    path[k] = bytes(element)
    assert not verify_consistency(old, len(leaves), old_root, new_root, path)


@given(trees, st.data())
def test_a_changed_prefix_is_not_consistent(leaves: list[bytes], data: st.DataObject) -> None:
    assume(len(leaves) > 1)
    old = data.draw(st.integers(1, len(leaves) - 1), label="old size")
    i = data.draw(st.integers(0, old - 1), label="changed leaf")
    rewritten = list(leaves)
    rewritten[i] += b"!"
    path = consistency_path(rewritten, old)
    assert not verify_consistency(
        old, len(leaves), tree_hash(leaves[:old]), tree_hash(rewritten), path
    )


@given(trees, st.data())
def test_changing_a_leaf_changes_the_fingerprint(leaves: list[bytes], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(leaves) - 1), label="index")
    other = data.draw(st.binary(max_size=6).filter(lambda b: b != leaves[i]), label="leaf")
    assert tree_hash([*leaves[:i], other, *leaves[i + 1 :]]) != tree_hash(leaves)


@given(trees, st.data())
def test_removing_a_leaf_changes_the_fingerprint(leaves: list[bytes], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(leaves) - 1), label="index")
    assert tree_hash(leaves[:i] + leaves[i + 1 :]) != tree_hash(leaves)


@given(trees, st.data())
def test_appending_a_leaf_changes_the_fingerprint(leaves: list[bytes], data: st.DataObject) -> None:
    extra = data.draw(st.binary(max_size=6), label="leaf")
    assert tree_hash([*leaves, extra]) != tree_hash(leaves)


@given(trees, st.data())
def test_swapping_two_leaves_changes_the_fingerprint(
    leaves: list[bytes], data: st.DataObject
) -> None:
    assume(len(set(leaves)) > 1)
    i = data.draw(st.integers(0, len(leaves) - 1), label="i")
    j = data.draw(
        st.integers(0, len(leaves) - 1).filter(lambda j: leaves[j] != leaves[i]), label="j"
    )
    swapped = list(leaves)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    assert tree_hash(swapped) != tree_hash(leaves)


# --- proofs of one event ---------------------------------------------------------


def _leaf(event: dict[str, Any]) -> bytes:
    return canonical_bytes(normalize_event(event))


EVENTS: list[dict[str, Any]] = [
    {
        "type": "game_started",
        "format": "yaniv-log/1",
        "players": ["dana", "omer"],
        "rules": "israeli",
    },
    {
        "type": "round_started",
        "round": 1,
        "starter": "dana",
        "hands": {"dana": ["10h", "as"], "omer": ["JK", "2c"]},
        "upcard": "9d",
    },
    {"type": "discard", "player": "dana", "cards": ["10H"]},
    {"type": "draw", "player": "dana", "source": "pile", "card": "9d"},
    {"type": "note", "text": "Omer says the \u2665 was a \u2666", "_app": {"v": 1.5}},
]
LOG_LEAVES = [_leaf(e) for e in EVENTS]
FINGERPRINT = tree_hash(LOG_LEAVES).hex()


def _proof(index: int) -> dict[str, Any]:
    return make_proof(LOG_LEAVES, index)


def _flip_hex(digest: str) -> str:
    return digest[:-1] + ("1" if digest[-1] == "0" else "0")


def test_make_proof_has_exactly_the_documented_fields() -> None:
    proof = _proof(2)
    assert list(proof) == ["fingerprint", "tree_size", "index", "event", "path"]
    assert proof["fingerprint"] == FINGERPRINT
    assert proof["tree_size"] == 5 and proof["index"] == 2
    assert proof["event"] == {"type": "discard", "player": "dana", "cards": ["TH"]}
    assert proof["path"] == [p.hex() for p in inclusion_path(LOG_LEAVES, 2)]


@pytest.mark.parametrize("index", [-1, 5])
def test_make_proof_refuses_an_index_outside_the_log(index: int) -> None:
    with pytest.raises(IndexError):
        make_proof(LOG_LEAVES, index)


@pytest.mark.parametrize("index", range(len(EVENTS)))
def test_every_event_proof_verifies(index: int) -> None:
    text = json.dumps(_proof(index), ensure_ascii=False)
    assert verify_proof(text, FINGERPRINT) is True
    assert verify_proof(text.encode("utf-8"), FINGERPRINT.upper()) is True
    assert verify_proof(b"\xef\xbb\xbf" + text.encode("utf-8"), FINGERPRINT) is True


def test_the_event_may_be_respelled_but_not_changed() -> None:
    proof = _proof(1)
    proof["event"]["hands"]["dana"] = ["T\u2665", "A\u2660"]
    assert verify_proof(json.dumps(proof), FINGERPRINT)
    proof["event"]["hands"]["dana"] = ["TH", "AC"]
    assert not verify_proof(json.dumps(proof), FINGERPRINT)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda p: p["event"].update(player="omer"),
        lambda p: p["event"].update(seq=2),
        lambda p: p["event"].update(cards=["TH", "TS"]),
        lambda p: p.update(index=1),
        lambda p: p.update(index=3),
        lambda p: p.update(tree_size=3),
        lambda p: p.update(tree_size=4),
        lambda p: p["path"].reverse(),
        lambda p: p["path"].pop(),
        lambda p: p["path"].append(p["fingerprint"]),
        lambda p: p["path"].__setitem__(0, _flip_hex(p["path"][0])),
        lambda p: p["path"].__setitem__(-1, _flip_hex(p["path"][-1])),
    ],
)
def test_a_tampered_proof_is_invalid(tamper: Any) -> None:
    proof = _proof(2)
    tamper(proof)
    assert verify_proof(json.dumps(proof), FINGERPRINT) is False


def test_seq_pins_the_index_the_bare_root_cannot() -> None:
    """Event 2 of 3 has the path [H(0,1)], which also fits index 1 of a 2-leaf tree."""
    events = [{"type": "note", "text": t} for t in "abc"]
    leaves = [_leaf(e) for e in events]
    moved = make_proof(leaves, 2) | {"index": 1, "tree_size": 2}
    assert verify_proof(json.dumps(moved), tree_hash(leaves).hex())

    numbered: list[dict[str, Any]] = [
        {"type": "note", "text": t, "seq": i} for i, t in enumerate("abc")
    ]
    leaves = [_leaf(e) for e in numbered]
    fingerprint = tree_hash(leaves).hex()
    assert verify_proof(json.dumps(make_proof(leaves, 2)), fingerprint)
    moved = make_proof(leaves, 2) | {"index": 1, "tree_size": 2}
    assert not verify_proof(json.dumps(moved), fingerprint)


def test_a_proof_for_another_fingerprint_is_invalid() -> None:
    other = tree_hash(LOG_LEAVES[:4]).hex()
    assert verify_proof(json.dumps(_proof(2)), other) is False
    # a proof that claims another log but whose path leads to the trusted one
    proof = _proof(2)
    proof["fingerprint"] = other
    assert verify_proof(json.dumps(proof), FINGERPRINT) is False


def _without(name: str) -> dict[str, Any]:
    proof = _proof(2)
    del proof[name]
    return proof


def _with(**fields: Any) -> dict[str, Any]:
    proof = _proof(2)
    proof.update(fields)
    return proof


MALFORMED: list[tuple[str | bytes, str]] = [
    ("", "not JSON"),
    ("{", "not JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
    ("[1, 2]", "JSON object"),
    ('{"fingerprint": NaN}', "not JSON"),
    *[
        (json.dumps(_without(name)), repr(name))
        for name in ("fingerprint", "tree_size", "index", "event", "path")
    ],
    (json.dumps(_with(fingerprint="abc")), "'fingerprint': expected 64 hex digits"),
    (json.dumps(_with(fingerprint=None)), "'fingerprint': expected a string"),
    (json.dumps(_with(tree_size="5")), "'tree_size': expected an integer >= 1"),
    (json.dumps(_with(tree_size=0)), "'tree_size': expected an integer >= 1"),
    (json.dumps(_with(tree_size=-3)), "'tree_size': expected an integer >= 1"),
    (json.dumps(_with(tree_size=True)), "'tree_size': expected an integer >= 1"),
    (json.dumps(_with(tree_size=5.0)), "'tree_size': expected an integer >= 1"),
    (json.dumps(_with(index=-1)), "'index': expected an integer >= 0"),
    (json.dumps(_with(index=5)), "'index': expected an integer below tree_size 5"),
    (json.dumps(_with(event=["discard"])), "'event': expected a JSON object"),
    (json.dumps(_with(path="ab")), "'path': expected a list"),
    (json.dumps(_with(path=[FINGERPRINT, 7])), "'path' item 1: expected a string"),
    (json.dumps(_with(path=["zz" * 32])), "'path' item 0: expected 64 hex digits"),
    (json.dumps(_with(path=[FINGERPRINT[:-2]])), "'path' item 0: expected 64 hex digits"),
    (json.dumps(_with(path=[FINGERPRINT + "00"])), "'path' item 0: expected 64 hex digits"),
    (
        f'{{"fingerprint": "{FINGERPRINT}", "tree_size": 1, "index": 0, "path": [],'
        ' "event": {"type": "note", "text": "\\ud800"}}',
        "'event'",
    ),
]


@pytest.mark.parametrize(("data", "message"), MALFORMED)
def test_a_malformed_proof_is_an_error_naming_the_field(data: str | bytes, message: str) -> None:
    with pytest.raises(ProofError) as info:
        verify_proof(data, FINGERPRINT)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, YanivAuditError)


@pytest.mark.parametrize(
    "bad",
    ["", "xyz", FINGERPRINT[:-1], FINGERPRINT + "0", "g" + FINGERPRINT[1:], "0x" + FINGERPRINT[2:]],
)
def test_a_malformed_fingerprint_is_an_error(bad: str) -> None:
    with pytest.raises(ProofError, match="--fingerprint: expected 64 hex digits"):
        verify_proof(json.dumps(_proof(0)), bad)


@given(st.lists(st.text(max_size=12), min_size=1, max_size=20), st.data())
def test_proofs_of_random_logs_verify(texts: list[str], data: st.DataObject) -> None:
    leaves = [_leaf({"type": "note", "text": t, "seq": i}) for i, t in enumerate(texts)]
    index = data.draw(st.integers(0, len(leaves) - 1), label="index")
    proof = make_proof(leaves, index)
    fingerprint = tree_hash(leaves).hex()
    assert verify_proof(json.dumps(proof, ensure_ascii=False), fingerprint)
    proof["event"]["text"] += "x"
    assert not verify_proof(json.dumps(proof), fingerprint)
