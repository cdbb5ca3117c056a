"""A dict made when read answers every read as the plain dict it stands for, made once."""

import pytest

from designer.model.common.made_when_read import MadeWhenRead


class _Squares(MadeWhenRead[int, int]):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n, self.made = n, 0

    def _make(self) -> None:
        if not self.made:
            self.made += 1
            dict.update(self, {i: i * i for i in range(self.n)})


_READS = [
    lambda d: d[2], lambda d: 2 in d, lambda d: list(d), lambda d: len(d), lambda d: d.get(2),
    lambda d: d == {i: i * i for i in range(4)}, lambda d: repr(d), lambda d: list(d.keys()),
    lambda d: list(d.values()), lambda d: list(d.items()), lambda d: d.copy(),
]


@pytest.mark.parametrize("read", range(len(_READS)))
def test_every_read_makes_the_entries_once_and_reads_as_the_plain_dict(read):
    made, plain = _Squares(4), {i: i * i for i in range(4)}
    assert _READS[read](made) == _READS[read](plain)
    assert made.made == 1
    assert all(_READS[r](made) == _READS[r](plain) for r in range(len(_READS)))
    assert made.made == 1 and dict(made) == plain
