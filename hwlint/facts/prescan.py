"""The text pre-scan: what is found in a module's text without parsing it
(its lines, `# hwlint: skip-file`, `# noqa` comments, the lines that mention
an accelerator)."""

import re
from collections.abc import Iterator, Sequence
from typing import Any, Iterable, overload

from hwlint.facts.vocabulary import ANCHOR, DEFAULT_ACCELERATORS, LazyPattern, Vocabulary, vocabulary_for

# Lines end where Python's tokenizer says they do (str.splitlines would also
# split on form feeds and other characters Python treats as whitespace).
_NEWLINE = LazyPattern(r"\r\n|\r|\n")
_NOQA = LazyPattern(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)
_SKIP_FILE = LazyPattern(r"#\s*hwlint:\s*skip-file\b")


def split_lines(source: str) -> list[str]:
    """The module's lines, split where Python's tokenizer splits them."""
    if "\r" not in source:
        return source.split("\n")  # the same lines, several times faster
    return _NEWLINE.split(source)


def line_at(text: str, at: int) -> str:
    """The line of `text` (`\\n` line ends) that holds the place `at`,
    without splitting the others."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start:] if end == -1 else text[start:end]


class Lines(Sequence[str]):
    """A module's lines (split_lines), split on first use: most modules need
    only how many there are (one count of newlines) and the few lines that
    hold a token, which their readers take from the text (line_at); splitting
    every line of every module cost more than the rest of the pre-scan."""

    __slots__ = ("_source", "_lines", "_count")

    def __init__(self, source: str) -> None:
        self._source = source
        self._lines: list[str] | None = None
        self._count = -1

    def all(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self._source)
        return self._lines

    def __len__(self) -> int:
        if self._count < 0:
            # Without "\r", split_lines is source.split("\n"): one line more than newlines.
            source = self._source
            self._count = len(self.all()) if "\r" in source else source.count("\n") + 1
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self.all()[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self.all())


def is_skipped(source: str) -> bool:
    """Whether the module says `# hwlint: skip-file`."""
    return "skip-file" in source and _SKIP_FILE.search(source) is not None


def places(text: str, token: str) -> list[int]:
    """Where `token` starts in `text`, in order."""
    found: list[int] = []
    at = text.find(token)
    while at != -1:
        found.append(at)
        at = text.find(token, at + 1)
    return found


def line_numbers(text: str, positions: Iterable[int]) -> list[int]:
    """The numbers of the lines (`\\n`-separated) that hold these places of
    `text`, given in order: each once, ascending. Newlines are counted once,
    from one place to the next, not from the start each time."""
    found: list[int] = []
    line, counted = 1, 0
    for at in positions:
        line += text.count("\n", counted, at)
        counted = at
        if not found or found[-1] != line:
            found.append(line)
    return found


def _lines_holding(text: str, positions: Iterable[int]) -> Iterator[tuple[int, str]]:
    """(number, text) of the lines (`\\n`-separated) that hold these places
    of `text`, given in order: each line once."""
    line, counted, last = 1, 0, 0
    for at in positions:
        line += text.count("\n", counted, at)
        counted = at
        if line != last:
            last = line
            yield line, line_at(text, at)


def noqa_comments(source: str, lines: Sequence[str]) -> dict[int, frozenset[str] | None]:
    """The `# noqa` comments by line: the codes each names, None for every code."""
    found: dict[int, frozenset[str] | None] = {}
    lowered = source.lower()
    if "noqa" not in lowered:
        return found
    if source.isascii() and "\r" not in source:
        # The lines holding "noqa", from its places in the text (lowering
        # ASCII keeps every character where it is): not every line lowered,
        # nor every line split.
        candidates: Iterable[tuple[int, str]] = _lines_holding(source, places(lowered, "noqa"))
    else:
        candidates = ((n, line) for n, line in enumerate(lines, start=1) if "noqa" in line.lower())
    for number, line in candidates:
        match = _NOQA.search(line)
        if match:
            codes = match.group("codes")
            found[number] = frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c) if codes else None
    return found


# Tokens the extractor finds besides the vocabulary's: collective backends
# in quotes and upper case (`"nccl"`, `ProcessGroupNCCL`), devices with a
# computed index (`cuda:{`), PyTorch's get_devtype().
EXTRA_TOKENS = ("ccl", "CCL", ":{", "get_devtype(")
# Below this many characters a str.find pass per token costs less than
# importing the automaton (a one-file run on a median file never imports it).
_AUTOMATON_FROM = 32 * 1024
_AUTOMATA: dict[tuple[str, ...], Any] = {}
use_automaton = True  # tests turn it off to compare both ways


def _automaton(tokens: tuple[str, ...]) -> Any:
    """An Aho-Corasick automaton of `tokens` (ahocorasick_rs: one pass over
    a text for all of them), or None where it is not installed."""
    found = _AUTOMATA.get(tokens, False)
    if found is False:
        try:
            import ahocorasick_rs
        except ImportError:
            found = None
        else:
            found = ahocorasick_rs.AhoCorasick(list(tokens), matchkind=ahocorasick_rs.MatchKind.Standard)
        _AUTOMATA[tokens] = found
    return found


class Places:
    """Where the tokens hwlint looks for start in one module's text (`\n`
    line ends): the vocabulary's (Vocabulary.tokens) and EXTRA_TOKENS. A big
    text is searched once for all of them (an Aho-Corasick automaton), a
    small one, or any where ahocorasick_rs is missing, with a str.find pass
    per token; the places are the same either way."""

    def __init__(self, text: str, vocabulary: Vocabulary | None = None) -> None:
        self.text = text
        self.vocabulary = vocabulary = vocabulary or vocabulary_for(DEFAULT_ACCELERATORS)
        self._found: dict[str, list[int]] | None = None
        if use_automaton and len(text) >= _AUTOMATON_FROM:
            tokens = vocabulary.tokens + tuple(t for t in EXTRA_TOKENS if t not in vocabulary.tokens)
            automaton = _automaton(tokens)
            if automaton is not None:
                found: dict[str, list[int]] = {token: [] for token in tokens}
                lists = [found[token] for token in tokens]
                # Overlapping: every occurrence of every token, as str.find finds them.
                for index, start, _ in automaton.find_matches_as_indexes(text, overlapping=True):
                    lists[index].append(start)
                self._found = found

    def of(self, token: str) -> list[int]:
        """Where one of EXTRA_TOKENS starts, in order."""
        if self._found is not None:
            return self._found[token]
        return places(self.text, token)

    def accelerators(self) -> list[int]:
        """Where the vocabulary's tokens start, in order (at least one place
        on each line that holds one)."""
        text, vocabulary = self.text, self.vocabulary
        if self._found is not None:
            found = self._found
            positions = [at for token in vocabulary.tokens for at in found[token]]
            positions.sort()
            return positions
        positions = []
        for token in vocabulary.scanned:
            positions += places(text, token)
        anchored = vocabulary.anchored
        if anchored:
            # One pass for "pu": each hit is tried against the tokens with the
            # character before it ("input" is tried against '"npu', ...).
            at = text.find(ANCHOR, 1)
            while at != -1:
                tokens = anchored.get(text[at - 1])
                if tokens is not None:
                    for token, offset in tokens:
                        if at >= offset and text.startswith(token, at - offset):
                            positions.append(at - offset)
                            break  # one position is enough for the line
                at = text.find(ANCHOR, at + 1)
        positions.sort()
        return positions


def accelerator_lines(
    text: str, lines: Sequence[str], vocabulary: Vocabulary | None = None, found: Places | None = None
) -> list[int]:
    """Sorted 1-based numbers of the lines that mention an accelerator.

    `text` is the module with `\n` line ends (the source itself when it has
    no `\r`), `lines` its lines (each candidate line is taken from `text`:
    the same line); `found`: its Places, when the caller has them."""
    vocabulary = vocabulary or vocabulary_for(DEFAULT_ACCELERATORS)
    pattern = vocabulary.text
    positions = (found or Places(text, vocabulary)).accelerators()
    if not positions:
        return []
    result: list[int] = []
    line, previous, checked = 1, 0, 0
    for at in positions:
        line += text.count("\n", previous, at)
        previous = at
        if line != checked:  # a line with several tokens is matched once
            checked = line
            if pattern.search(line_at(text, at)):
                result.append(line)
    return result
