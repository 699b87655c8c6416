"""`migrate_source`: one module's migrations, in the order they build on
each other: those that rewrite the file whole (a one-device class
generalized), then the class-level ones on one tree, then the tests of the
ACCELERATOR classes that made."""

from __future__ import annotations

from typing import Callable, Sequence

from hwlint.core.config import Config
from hwlint.facts import ModuleFacts
from hwlint.fix.migrate.accelerator_tests import accelerator_tests
from hwlint.fix.migrate.class_level import ModuleEdits, write_class_level
from hwlint.fix.migrate.device_param import migrate_device_param, one_default
from hwlint.fix.migrate.generalize import device_class, generalize
from hwlint.fix.migrate.only_for import only_for
from hwlint.fix.migrate.outcome import Done, MigrateError, MigrationResult, Refused
from hwlint.fix.migrate.tree import bindings, find_class
from hwlint.fix.plan import ClassMove, Migration
from hwlint.fix.rewrite import parse_module


def migrate_source(
    data: bytes, migrations: Sequence[Migration], config: Config, extract: Callable[[bytes], ModuleFacts]
) -> MigrationResult:
    """The module with `migrations` made where the tree allows them; the
    others refused with the reason. MigrateError when libcst cannot
    parse it. `extract` gives a version's facts (the tests' migrations
    read them after the class-level ones)."""
    done: list[Done] = []
    refused: list[Refused] = []
    accelerator: list[Migration] = [m for m in migrations if m.kind == "accelerator-tests"]
    seen: dict[bytes, ModuleFacts] = {}

    def facts_of(version: bytes) -> ModuleFacts:  # each version's facts once
        if version not in seen:
            seen[version] = extract(version)
        return seen[version]

    original = data
    tried: set[Migration] = set()
    for m in migrations:
        if m.kind == "device-param":
            # Tests whose `device` defaults to one accelerator are that
            # device's; generalized if they can be, else classified so.
            default = one_default(data, m, bindings(facts_of(data)))
            if default is None:
                continue
            made = generalize(data, m._replace(member=default.upper()), config, facts_of)
            if isinstance(made, str):
                continue
            tried.add(m)
        elif m.kind == "generalize":
            made = generalize(data, m, config, facts_of)
            if isinstance(made, str):
                # The one-device classification hwlint.fix.apply wrote stays,
                # as a class instantiated for that device when it can be.
                refused.append(Refused(m, made))
                if m.member not in config.classifications:
                    continue  # not configured: the class stays unclassified, with why
                as_device = device_class(data, m, config, facts_of)
                if isinstance(as_device, str):
                    continue
                data, instantiated = as_device
                done.append(instantiated)
                continue
        else:
            continue
        data, generalized = made
        done.append(generalized)
        accelerator.append(m._replace(kind="accelerator-tests"))
    module = parse_module(data, MigrateError)
    state = ModuleEdits(module, config)
    facts = facts_of(data)
    for m in migrations:
        if m.kind in ("accelerator-tests", "generalize") or m in tried:
            continue
        where = find_class(state.body, m.class_name, m.occurrence)
        if isinstance(where, str):
            refused.append(Refused(m, where))
            continue
        handler = only_for if m.kind == "only-for" else migrate_device_param if m.kind == "device-param" else None
        if handler is None:
            refused.append(Refused(m, f"no migration of kind {m.kind}"))
            continue
        result = handler(state, m, where, facts)
        if isinstance(result, str):
            refused.append(Refused(m, result))
            continue
        done.append(result)
        if result.member == "ACCELERATOR":
            accelerator.append(m._replace(kind="accelerator-tests"))
    fixed = data
    if state.declare or state.instantiate:
        module = write_class_level(state)
        fixed = module.bytes
        facts = facts_of(fixed)
    moves: list[ClassMove] = []
    if accelerator:
        # The tree as written, and the facts of its bytes: their lines match.
        module, tests_done, tests_refused = accelerator_tests(module, accelerator, config, facts)
        done.extend(tests_done)
        refused.extend(tests_refused)
        moved: dict[tuple[str, str], list[Done]] = {}
        for d in tests_done:
            if d.to_class:
                moved.setdefault((d.class_name, d.to_class), []).append(d)
        for (old, new), ds in moved.items():
            member = ds[0].member or ""
            # The types the tests still run on: the device, or those an @onlyOn named (their classes).
            devices: tuple[str, ...] = (
                (member.lower(),) if member != "ACCELERATOR" else tuple(c[len(new) :].lower() for c in ds[0].collected)
            )
            moves.append(ClassMove(old, new, tuple(d.method for d in ds), devices))
        if tests_done:
            fixed = module.bytes
    return MigrationResult(fixed if done else original, tuple(done), tuple(refused), tuple(moves))
