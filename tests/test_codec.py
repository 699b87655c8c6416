"""The compact form of facts: derived from the records' fields, so that any
record the annotations allow survives to_blob/from_blob."""

from __future__ import annotations

import types
import typing
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwlint.facts import ModuleFacts, from_blob, from_tuple, to_blob, to_tuple
from hwlint.facts.codec import _fields, _is_record, _schema, codec_source


def strategy(tp: Any) -> st.SearchStrategy[Any]:
    """Values of type `tp`, records built field by field from their own annotations."""
    if _is_record(tp):
        return st.tuples(*[strategy(t) for _, t in _fields(tp)]).map(tp._make)
    if tp is type(None):
        return st.none()
    simple = {str: st.text(max_size=6), int: st.integers(), bool: st.booleans()}
    if tp in simple:
        return simple[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*[strategy(a) for a in args])
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return st.lists(strategy(args[0]), max_size=3).map(tuple)
    if origin is tuple:
        return st.tuples(*[strategy(a) for a in args])
    if origin is dict:
        return st.dictionaries(strategy(args[0]), strategy(args[1]), max_size=3)
    if origin is frozenset:
        return st.frozensets(strategy(args[0]), max_size=3)
    raise AssertionError(f"no strategy for {tp!r}")


@settings(max_examples=200, deadline=None)
@given(strategy(ModuleFacts))
def test_every_record_survives_the_compact_form(facts: ModuleFacts) -> None:
    assert from_blob(to_blob(facts)) == facts
    assert from_tuple(to_tuple(facts)) == facts


def _compile(record: type, direction: str) -> Any:
    source, namespace = codec_source(direction, record)
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace[f"_{direction}_{record.__name__}"]


class Inner(NamedTuple):
    name: str
    count: int


class Outer(NamedTuple):
    path: str
    inner: Inner
    items: tuple[Inner, ...]
    maybe: Inner | None
    tags: dict[int, frozenset[str] | None]


class Inner2(NamedTuple):
    name: str
    count: int
    added: tuple[str, ...]  # the new field


class Outer2(NamedTuple):
    path: str
    inner: Inner2
    items: tuple[Inner2, ...]
    maybe: Inner2 | None
    tags: dict[int, frozenset[str] | None]


def test_a_field_added_to_a_record_is_in_the_compact_form_and_the_schema() -> None:
    value = Outer2(
        "p",
        Inner2("a", 1, ("x",)),
        (Inner2("b", 2, ()), Inner2("c", 3, ("y", "z"))),
        None,
        {3: frozenset({"HWC1", "HWC2"}), 4: None},
    )
    compact = _compile(Outer2, "encode")(value)
    assert compact == (
        "p",
        ("a", 1, ("x",)),
        (("b", 2, ()), ("c", 3, ("y", "z"))),
        None,
        ((3, ("HWC1", "HWC2")), (4, None)),
    )
    assert _compile(Outer2, "decode")(compact) == value
    # The cache key follows the fields: entries of the old shape are never read as the new.
    old, new = _schema(Outer), _schema(Outer2)
    assert old != new and ("Inner2", (("name", "str"), ("count", "int"), ("added", "tuple[str, ...]"))) in new


def test_an_annotation_without_a_compact_form_fails_loudly() -> None:
    class Listed(NamedTuple):
        values: list[int]

    with pytest.raises(TypeError, match="no compact form"):
        codec_source("encode", Listed)


@pytest.mark.parametrize("bad", [(), ("p",) * 11, ("p", None, False, (), ((1,),), (), (), 0, (), ())])
def test_a_malformed_tuple_raises_what_the_cache_treats_as_a_miss(bad: tuple[Any, ...]) -> None:
    with pytest.raises((TypeError, ValueError)):
        from_tuple(bad)
