"""The text of the module being extracted, with what is found in it once:
the lines, the character columns of ast's byte offsets, and the sorted lines
where the vocabulary's tokens are (accelerator mentions, `get_devtype()`,
collective backends), each computed the first time a class asks for it."""

from typing import Sequence

from hwlint.facts.backends import distributed_places
from hwlint.facts.prescan import Places, accelerator_lines, line_numbers
from hwlint.facts.vocabulary import DEFAULT_ACCELERATORS, Accelerators, vocabulary_for


class ModuleText:
    """One module's lines and text, and the places of the tokens looked for."""

    def __init__(
        self,
        lines: Sequence[str],
        text: str | None = None,
        accelerators: Accelerators = DEFAULT_ACCELERATORS,
    ) -> None:
        self.lines = lines
        self.vocabulary = vocabulary_for(accelerators)
        self.device_names = frozenset(accelerators.devices)
        # The module with "\n" line ends, when the caller has it at hand.
        self._text = text
        # Columns are byte offsets + 1 on every line of an ASCII module.
        self._ascii = text is not None and text.isascii()
        # Sorted numbers of the lines where the vocabulary's text matches in the
        # whole module, computed when the first class needs them.
        self._places: Places | None = None
        self._hits: list[int] | None = None
        self._devtype: list[int] | None = None
        self._distributed: list[int] | None = None

    def column(self, line: int, col_offset: int) -> int:
        """1-based character column; ast gives UTF-8 byte offsets."""
        if self._ascii:
            return col_offset + 1
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return col_offset + 1
        return len(text.encode("utf-8")[:col_offset].decode("utf-8", errors="ignore")) + 1

    def places(self) -> Places:
        """Where the module's text holds the tokens looked for, found once."""
        if self._places is None:
            self._places = Places(self._text if self._text is not None else "\n".join(self.lines), self.vocabulary)
        return self._places

    def hits(self) -> list[int]:
        """Lines mentioning an accelerator, found once per module on demand."""
        if self._hits is None:
            found = self.places()
            self._hits = accelerator_lines(found.text, self.lines, self.vocabulary, found)
        return self._hits

    def devtype_lines(self) -> list[int]:
        """Lines calling get_devtype() (PyTorch's FSDP/DTensor tests take
        their device from it: the accelerator there is), found once."""
        if self._devtype is None:
            found = self.places()
            self._devtype = line_numbers(found.text, found.of("get_devtype("))
        return self._devtype

    def distributed_lines(self) -> list[int]:
        """Lines that may hold what distributed tests hard-code and the
        accelerator pattern does not see (`"nccl"`, `f"cuda:{rank}"`),
        found once per module on demand."""
        if self._distributed is None:
            found = self.places()
            self._distributed = line_numbers(found.text, distributed_places(found, self.device_names))
        return self._distributed
