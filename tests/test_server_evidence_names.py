"""The words host names carry (DGX, HGX, GB200, H100...) counted over all the names at once are
the name-by-name count, in the same order (`most_common` breaks ties by it)."""

from __future__ import annotations

from collections import Counter

from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model.topology.server_evidence import _FAMILY_WORDS, _GPU_WORDS, _name_hits


def _name_by_name(names: list[str]) -> tuple[Counter[str], Counter[str]]:
    word_hits: Counter[str] = Counter()
    for name in names:
        for pattern, prefixes in _FAMILY_WORDS:
            if pattern.search(name):
                word_hits[prefixes[0]] += 1
    gpu_hits = Counter(label for name in names for word, label in _GPU_WORDS if word in name.lower())
    return word_hits, gpu_hits


_PIECES = st.sampled_from(["dgx", "DGX", "hgx", "xdgx", "gb200", "NVL72", "gb300", "mi300", "mi325", "mi355",
                           "h100", "H200", "b200", "b300", "a100", "-", "_", "node", "7", "İ", "\n", " ", "ǅ"])
_NAMES = st.lists(st.lists(_PIECES, max_size=5).map("".join), max_size=30)


@settings(max_examples=examples(300), deadline=None)
@given(_NAMES)
def test_words_counted_over_all_names_are_the_name_by_name_count(names):
    word_hits, gpu_hits = _name_hits(names)
    expected_words, expected_gpus = _name_by_name(names)
    assert list(word_hits.items()) == list(expected_words.items())
    assert list(gpu_hits.items()) == list(expected_gpus.items())
    assert word_hits.most_common(1) == expected_words.most_common(1)


def test_a_tie_goes_to_the_family_named_first():
    assert _name_hits(["hgx-1", "dgx-2"])[0].most_common(1) == [("hgx-", 1)]
    assert _name_hits(["dgx-1", "hgx-2"])[0].most_common(1) == [("dgx-", 1)]
