"""hwlint.facts.prescan: the lines found from the text's tokens are the lines
the accelerator pattern matches, however the tokens are searched for."""

import pytest

from hwlint.facts.prescan import accelerator_lines, noqa_comments, split_lines
from hwlint.facts.vocabulary import DEFAULT_ACCELERATORS, vocabulary_for

TEXT = """import torch
x = input(output)  # input holds npu: not a use
y = torch.npu.is_available()
z = t.npu()
a = "npu:0"
b = 'xpu'
c = torch.xpu.device_count(); d = ipu
e = self.ipu  # a segment after a dot
f = model.hpu()
g = nput.pupu()
h = t.to("openreg:1")
i = TEST_OPENREG and TEST_CUDA
pu
"""


@pytest.mark.parametrize("extended", [False, True])
def test_accelerator_lines_are_the_lines_the_pattern_matches(extended: bool) -> None:
    acc = (
        DEFAULT_ACCELERATORS.extended(["torch_openreg.openreg"], ["TEST_OPENREG"], ["openreg", "pupu"])
        if extended
        else DEFAULT_ACCELERATORS
    )
    vocabulary = vocabulary_for(acc)
    lines = split_lines(TEXT)
    expected = [n for n, line in enumerate(lines, start=1) if vocabulary.text.search(line)]
    assert accelerator_lines(TEXT, lines, vocabulary) == expected
    assert 2 not in expected and 3 in expected and (10 in expected) == extended


def test_tokens_holding_pu_are_searched_together() -> None:
    vocabulary = vocabulary_for(DEFAULT_ACCELERATORS)
    assert "xpu" not in vocabulary.scanned and ("xpu", 1) in vocabulary.anchored["x"]
    assert set(vocabulary.scanned) | {t for found in vocabulary.anchored.values() for t, _ in found} == set(
        vocabulary.tokens
    )


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_noqa_comments(newline: str) -> None:
    source = newline.join(["a = 1  # noqa", "b = 2", "c = 3  # NOQA: HWC101, HWC2", "d = 'é'  # noqa:HWC3", ""])
    for text in (source, source.replace("é", "e")):
        assert noqa_comments(text, split_lines(text)) == {
            1: None,
            3: frozenset({"HWC101", "HWC2"}),
            4: frozenset({"HWC3"}),
        }


def test_big_texts_are_searched_once_for_every_token_with_the_same_places(monkeypatch: pytest.MonkeyPatch) -> None:
    """A big module's tokens are found by one Aho-Corasick pass; the places
    (and so the lines) are those a str.find pass per token finds."""
    from hwlint.facts import prescan
    from hwlint.facts.extract import extract_source

    vocabulary = vocabulary_for(DEFAULT_ACCELERATORS.extended(["torch_openreg.openreg"], ["TEST_OPENREG"], ["openreg"]))
    extra = (
        'class TestD(TestCase):\n    def test_d(self):\n        dist.init_process_group("nccl")\n'
        '        x = f"cuda:{rank}"  # ProcessGroupNCCL, get_devtype()\n'
    )
    text = (TEXT + extra) * (40_000 // len(TEXT + extra) + 1)
    assert len(text) >= prescan._AUTOMATON_FROM
    once = prescan.Places(text, vocabulary)
    assert once._found is not None  # the automaton was used
    monkeypatch.setattr(prescan, "use_automaton", False)
    by_token = prescan.Places(text, vocabulary)
    assert by_token._found is None
    assert [once.of(t) for t in prescan.EXTRA_TOKENS] == [by_token.of(t) for t in prescan.EXTRA_TOKENS]
    assert all(once.of(t) for t in prescan.EXTRA_TOKENS)
    lines = split_lines(text)
    assert (
        accelerator_lines(text, lines, vocabulary, once)
        == accelerator_lines(text, lines, vocabulary, by_token)
        == [n for n, line in enumerate(lines, start=1) if vocabulary.text.search(line)]
    )
    slow = extract_source("test_big.py", text)
    monkeypatch.setattr(prescan, "use_automaton", True)
    fast = extract_source("test_big.py", text)
    assert fast == slow and fast.classes and fast.classes[0].distributed
