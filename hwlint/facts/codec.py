"""The compact form of facts: nested plain tuples, marshalled and compressed."""

import marshal
import zlib

from hwlint.facts.read import ReadError
from hwlint.facts.records import Branch, ClassFacts, Declaration, Dynamic, Import, Instantiation, Method, ModuleFacts, Site, Value

# -- compact form ---------------------------------------------------------
#
# Facts travel from worker processes and live in the cache as nested plain
# tuples of str/int/bool/None (marshal-able: marshal refuses tuple
# subclasses, and it loads several times faster than pickle). `from_tuple(
# to_tuple(m)) == m` for every ModuleFacts; a test checks it, and SCHEMA (the
# records' fields) is part of the cache key, so adding a field cannot meet
# entries written without it.

# What the records mean can change while their fields do not (which
# decorators count as `requires`): FACTS_VERSION, part of SCHEMA, says so.
FACTS_VERSION = 2
SCHEMA = (("facts", FACTS_VERSION),) + tuple(
    (cls.__name__, cls._fields)
    for cls in (ModuleFacts, ClassFacts, Method, Declaration, Value, Site, Branch, Instantiation, Import, ReadError, Dynamic)
)


def _sites(sites: tuple[Site, ...]) -> tuple[tuple[int, int, str, str, str], ...]:
    return tuple([(s.line, s.column, s.text, s.kind, s.name) for s in sites])


def to_tuple(m: ModuleFacts) -> tuple:  # type: ignore[type-arg]
    error = m.error
    return (
        m.path,
        None if error is None else (error.line, error.column, error.message),
        m.skip_file,
        tuple([(line, None if codes is None else tuple(sorted(codes))) for line, codes in m.noqa.items()]),
        tuple([
            (
                c.name, c.line, c.column, c.end_line, c.bases,
                tuple([(x.name, x.line, x.column, x.params, x.decorators) for x in c.methods]),
                tuple([(d.line, d.column, d.value.kind, d.value.text, d.where) for d in c.declarations]),
                _sites(c.probes), _sites(c.devices), c.decorators, c.branch.path, c.body_line, c.has_docstring,
                _sites(c.requires),
            )
            for c in m.classes
        ]),
        tuple([
            (i.line, i.column, i.class_name, i.only_for, i.except_for, i.allow_mps, i.allow_xpu, i.branch.path)
            for i in m.instantiations
        ]),
        tuple([(i.module, i.level, i.name, i.asname) for i in m.imports]),
        m.lines,
        m.accelerator_lines,
        tuple([tuple(d) for d in m.dynamic]),
    )


def from_tuple(t: tuple) -> ModuleFacts:  # type: ignore[type-arg]
    """The ModuleFacts `to_tuple` was given. Raises (TypeError, ValueError)
    on a malformed tuple: callers treat that as a cache miss."""
    # _make is tuple.__new__ plus a length check: no per-field work.
    make_method, make_site, make_import = Method._make, Site._make, Import._make
    path, error, skip_file, noqa, classes, instantiations, imports, lines, accelerator_lines, dynamic = t
    return ModuleFacts(
        path,
        None if error is None else ReadError._make(error),
        skip_file,
        {line: None if codes is None else frozenset(codes) for line, codes in noqa},
        tuple([
            ClassFacts(
                name, line, column, end_line, bases,
                tuple([make_method(x) for x in methods]),
                tuple([Declaration(dl, dc, Value(kind, text), where) for dl, dc, kind, text, where in declarations]),
                tuple([make_site(s) for s in probes]),
                tuple([make_site(s) for s in devices]),
                decorators, Branch(branch), body_line, has_docstring,
                tuple([make_site(s) for s in requires]),
            )
            for (name, line, column, end_line, bases, methods, declarations, probes, devices, decorators,
                 branch, body_line, has_docstring, requires) in classes
        ]),
        tuple([
            Instantiation(il, ic, cn, of, ef, am, ax, Branch(br))
            for il, ic, cn, of, ef, am, ax, br in instantiations
        ]),
        tuple([make_import(i) for i in imports]),
        lines,
        accelerator_lines,
        tuple([Dynamic._make(d) for d in dynamic]),
    )


def to_blob(m: ModuleFacts) -> bytes:
    """ModuleFacts as bytes (to_tuple, marshal, zlib: ~0.6 KB per file)."""
    return zlib.compress(marshal.dumps(to_tuple(m)), 1)


def from_blob(blob: bytes) -> ModuleFacts:
    """The ModuleFacts `to_blob` was given; raises on damaged bytes."""
    return from_tuple(marshal.loads(zlib.decompress(blob)))
