"""The compact form of facts: nested plain tuples, marshalled and compressed.

Facts travel from worker processes and live in the cache as nested plain
tuples of str/int/bool/None: marshal-able (marshal refuses tuple subclasses,
and it loads several times faster than pickle). `from_tuple(to_tuple(m)) ==
m` for every ModuleFacts.

The codec is derived from the records themselves: a record is the tuple of
its fields in `_fields` order, each field encoded as its annotation says (a
record, a tuple of records, `X | None`, a dict, a frozenset; plain values
and tuples of them as they are). A field added to a record is in the compact
form, and in SCHEMA, with no change here; an annotation the codec cannot
encode fails the first encode or decode (tests/test_codec.py) rather than
losing the field.

The derived encoder and decoder are generated as Python source, as
dataclasses generates `__init__`, the first time one is needed: straight
comprehensions with the fields unpacked, the code a hand-written codec would
be. A warm whole-tree run decodes thousands of modules' facts, and a
decoder that interpreted the annotations on each record would be several
times slower.
"""

# No `from __future__ import annotations`: the records' annotations are read
# as types (typing.get_type_hints would evaluate strings, at a cost).

import marshal
import types
import typing
import zlib
from typing import Any, Callable, NamedTuple, TypeGuard

from hwlint.facts.records import ModuleFacts

# What the records mean can change while their fields do not (which
# decorators count as `requires`), and so can the compact form's shape:
# FACTS_VERSION, part of SCHEMA, says so. 3: the codec derived from the
# fields (a nested record is a tuple of its own: Value, Branch). 4: which
# module-level mentions each class reaches (ClassFacts.unreached). 5:
# module-level names bound to a device (ModuleFacts.device_bindings). 6:
# devices found in the code (ModuleFacts.devices_found), matched as devices.
# 7: module-level names bound to GPU_TYPE (ModuleFacts.gpu_bindings). 8: what a
# module binds from a backend package (`from torch_musa import testing`) is that device's. 9: shown,
# and matched to its device, as the path it names (Accelerators.aliases).
# 12: a collective backend a `backend_str` hook returns is a "backend" site.
FACTS_VERSION = 15

Compact = tuple[Any, ...]  # the nested plain tuples to_tuple makes

_UNIONS = (typing.Union, types.UnionType)
_PLAIN_TYPES = (str, int, bool, float, type(None))


def _is_record(tp: object) -> TypeGuard[type[NamedTuple]]:
    # get_origin first: on Python 3.10, isinstance(tuple[int, ...], type) holds.
    return typing.get_origin(tp) is None and isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _type_name(tp: object) -> str:
    return tp.__name__ if isinstance(tp, type) and typing.get_origin(tp) is None else repr(tp)


_FIELDS: dict[type, list[tuple[str, Any]]] = {}


def _fields(record: type[NamedTuple]) -> list[tuple[str, Any]]:
    """(name, annotation) of each field, in order."""
    found = _FIELDS.get(record)
    if found is None:
        hints = record.__annotations__
        if any(isinstance(t, (str, typing.ForwardRef)) for t in hints.values()):  # a string annotation
            hints = typing.get_type_hints(record)
        found = _FIELDS[record] = [(name, hints[name]) for name in record._fields]
    return found


def _plain(tp: object) -> bool:
    """Whether values of type `tp` are stored as they are: scalars, and
    unions and plain tuples of them (a record is a tuple subclass: not plain)."""
    if tp in _PLAIN_TYPES:
        return True
    origin = typing.get_origin(tp)
    if origin in _UNIONS or origin is tuple:
        return all(_plain(a) for a in typing.get_args(tp) if a is not Ellipsis)
    return False


def _records(root: type[NamedTuple]) -> list[type[NamedTuple]]:
    """`root` and every record its fields hold, first seen first."""
    found: list[type[NamedTuple]] = []

    def visit(tp: object) -> None:
        if _is_record(tp):
            if tp not in found:
                found.append(tp)
                for _, field in _fields(tp):
                    visit(field)
        else:
            for arg in typing.get_args(tp):
                visit(arg)

    visit(root)
    return found


def _schema(root: type[NamedTuple]) -> tuple[tuple[Any, ...], ...]:
    return (("facts", FACTS_VERSION),) + tuple(
        (record.__name__, tuple((name, _type_name(tp)) for name, tp in _fields(record))) for record in _records(root)
    )


# Part of the facts cache's key (hwlint.engine.cached): every record's fields
# and their types, so that entries written with other records never meet these.
SCHEMA = _schema(ModuleFacts)


class _Generator:
    """Python source for the encoder and decoder of one record type."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"_new": tuple.__new__}
        self.functions: dict[str, str] = {}  # name -> source
        self.counter = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def name_of(self, obj: Any, name: str) -> str:
        self.namespace[name] = obj
        return name

    def encode(self, tp: Any, x: str) -> str:
        """An expression for the compact form of `x` (a plain name), of type `tp`."""
        if _plain(tp):
            return x
        if _is_record(tp):
            if all(_plain(t) for _, t in _fields(tp)):
                return f"tuple({x})"  # a tuple subclass: marshal wants the plain tuple
            return f"{self.record_function(tp, 'encode')}({x})"
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin in _UNIONS and len(args) == 2 and type(None) in args:
            inner = args[0] if args[1] is type(None) else args[1]
            return f"None if {x} is None else {self.encode(inner, x)}"
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
            if _is_record(item) and not all(_plain(t) for _, t in _fields(item)):
                names = [self.fresh() for _ in item._fields]
                fields = ", ".join(self.encode(t, n) for n, (_, t) in zip(names, _fields(item)))
                return f"tuple([({fields},) for ({', '.join(names)},) in {x}])"
            v = self.fresh()
            return f"tuple([{self.encode(item, v)} for {v} in {x}])"
        if origin is dict and len(args) == 2:
            k, v = self.fresh(), self.fresh()
            return f"tuple([({self.encode(args[0], k)}, {self.encode(args[1], v)}) for {k}, {v} in {x}.items()])"
        if origin is frozenset and len(args) == 1 and _plain(args[0]):
            return f"tuple(sorted({x}))"  # the same bytes whatever the set's order
        raise TypeError(f"facts codec: no compact form for {tp!r}")

    def decode(self, tp: Any, x: str) -> str:
        """An expression for the value of type `tp` whose compact form is `x` (a plain name)."""
        if _plain(tp):
            return x
        if _is_record(tp):
            if all(_plain(t) for _, t in _fields(tp)):
                # _make checks the length: a malformed entry raises TypeError.
                return f"{self.name_of(tp._make, '_make_' + tp.__name__)}({x})"
            return f"{self.record_function(tp, 'decode')}({x})"
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin in _UNIONS and len(args) == 2 and type(None) in args:
            inner = args[0] if args[1] is type(None) else args[1]
            return f"None if {x} is None else {self.decode(inner, x)}"
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            item = args[0]
            if _is_record(item) and not all(_plain(t) for _, t in _fields(item)):
                # Unpacking checks the length (ValueError); _new skips the
                # record's own __new__, a Python call per record.
                names = [self.fresh() for _ in item._fields]
                fields = ", ".join(self.decode(t, n) for n, (_, t) in zip(names, _fields(item)))
                cls = self.name_of(item, item.__name__)
                return f"tuple([_new({cls}, ({fields},)) for ({', '.join(names)},) in {x}])"
            v = self.fresh()
            return f"tuple([{self.decode(item, v)} for {v} in {x}])"
        if origin is dict and len(args) == 2:
            k, v = self.fresh(), self.fresh()
            return f"{{{self.decode(args[0], k)}: {self.decode(args[1], v)} for {k}, {v} in {x}}}"
        if origin is frozenset and len(args) == 1 and _plain(args[0]):
            return f"frozenset({x})"
        raise TypeError(f"facts codec: no compact form for {tp!r}")

    def record_function(self, record: type[NamedTuple], direction: str) -> str:
        """A function that encodes or decodes one `record` with fields of
        their own (used where no comprehension can unpack it)."""
        name = f"_{direction}_{record.__name__}"
        if name not in self.functions:
            self.functions[name] = ""  # a record that holds itself: the name exists while generating
            fields = _fields(record)
            names = [self.fresh() for _ in fields]
            if direction == "encode":
                body = ", ".join(self.encode(t, n) for n, (_, t) in zip(names, fields))
                result = f"({body},)"
            else:
                body = ", ".join(self.decode(t, n) for n, (_, t) in zip(names, fields))
                result = f"_new({self.name_of(record, record.__name__)}, ({body},))"
            self.functions[name] = f"def {name}(t):\n    ({', '.join(names)},) = t\n    return {result}\n"
        return name

    def source(self) -> str:
        return "\n\n".join(self.functions.values())


def codec_source(direction: str, record: type[NamedTuple] = ModuleFacts) -> tuple[str, dict[str, Any]]:
    """The generated source of `record`'s encoder (`_encode_NAME`, direction
    "encode") or decoder (`_decode_NAME`, "decode"), and the names it uses."""
    generator = _Generator()
    generator.record_function(record, direction)
    return generator.source(), generator.namespace


def _generated(direction: str) -> Callable[[Any], Any]:
    # Each direction on first use: a run that only reads the cache compiles
    # no encoder (generating and compiling one costs about half a millisecond).
    source, namespace = codec_source(direction)
    exec(compile(source, f"<hwlint.facts.codec: {direction}>", "exec"), namespace)
    function: Callable[[Any], Any] = namespace[f"_{direction}_{ModuleFacts.__name__}"]
    return function


_encode: Callable[[ModuleFacts], Compact] | None = None
_decode: Callable[[Compact], ModuleFacts] | None = None


def to_tuple(m: ModuleFacts) -> Compact:
    """ModuleFacts as nested plain tuples (marshal-able)."""
    global _encode
    if _encode is None:
        _encode = _generated("encode")
    return _encode(m)


def from_tuple(t: Compact) -> ModuleFacts:
    """The ModuleFacts `to_tuple` was given. Raises (TypeError, ValueError)
    on a malformed tuple: callers treat that as a cache miss."""
    global _decode
    if _decode is None:
        _decode = _generated("decode")
    return _decode(t)


def to_blob(m: ModuleFacts) -> bytes:
    """ModuleFacts as bytes (to_tuple, marshal, zlib: ~0.6 KB per file)."""
    return zlib.compress(marshal.dumps(to_tuple(m)), 1)


def from_blob(blob: bytes) -> ModuleFacts:
    """The ModuleFacts `to_blob` was given; raises on damaged bytes."""
    return from_tuple(marshal.loads(zlib.decompress(blob)))
