"""`migrate_source`: one module's migrations, in the order they build on
each other: those that rewrite the file whole (a one-device class
generalized), then the class-level ones on one tree, then the tests of the
ACCELERATOR classes that made."""

from __future__ import annotations

from typing import Callable, Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.facts import ModuleFacts
from hwlint.facts.devices import ANY_GPU_NAMES
from hwlint.fix.blocker import Blocker
from hwlint.fix.kinds import MigrationKind, left_unclassified
from hwlint.fix.migrate.accelerator_tests import accelerator_tests
from hwlint.fix.migrate.any_gpu import any_gpu
from hwlint.fix.migrate.class_level import ModuleEdits, redeclare, write_class_level
from hwlint.fix.migrate.data_strings import only_as_data
from hwlint.fix.migrate.device_free import device_free_tests
from hwlint.fix.migrate.device_param import device_tests, migrate_device_param, one_default
from hwlint.fix.migrate.generalize import device_class, generalize, gpu_type_class_generalized
from hwlint.fix.migrate.only_for import only_for
from hwlint.fix.migrate.outcome import Done, MigrateError, MigrationResult, Refusal, Refused
from hwlint.fix.migrate.split import listed, split
from hwlint.fix.migrate.tree import base_name, bindings, class_facts, find_class
from hwlint.fix.plan_records import ClassMove, Migration
from hwlint.fix.rewrite import parse_module


class _Progress:
    """One module's migration so far: its bytes (the whole-file migrations
    rewrite them in turn), the migrations made and refused, the classes
    whose tests are migrated last (ACCELERATOR ones), the migrations the
    whole-file phase made that the class-level one must not try again, and
    each version's facts, extracted once."""

    def __init__(
        self, data: bytes, migrations: Sequence[Migration], config: Config, extract: Callable[[bytes], ModuleFacts]
    ) -> None:
        self.data = data
        self.config = config
        self.done: list[Done] = []
        self.refused: list[Refused] = []
        self.accelerator: list[Migration] = [m for m in migrations if m.kind == "accelerator-tests"]
        self.tried: set[Migration] = set()
        self.migrations = list(migrations)
        self.moves: list[ClassMove] = []  # of the classes split
        self._extract = extract
        self._seen: dict[bytes, ModuleFacts] = {}

    def facts_of(self, version: bytes) -> ModuleFacts:
        """The facts of one version of the module, each version's once."""
        if version not in self._seen:
            self._seen[version] = self._extract(version)
        return self._seen[version]

    def made(self, m: Migration, made: Done, accelerator: bool) -> None:
        """`made` recorded; with `accelerator`, the class's tests are migrated next."""
        self.done.append(made)
        if accelerator:
            self.accelerator.append(m._replace(kind="accelerator-tests"))


def _default_device_generalized(progress: _Progress, m: Migration) -> None:
    """Tests whose `device` defaults to one accelerator are that device's:
    the class generalized if it can be; else the class-level phase
    classifies it so (hwlint.fix.migrate.device_param)."""
    default = one_default(progress.data, m, bindings(progress.facts_of(progress.data)))
    if default is None:
        return
    try:
        progress.data, made = generalize(
            progress.data, m._replace(member=default.upper()), progress.config, progress.facts_of
        )
    except Refusal:
        return
    progress.tried.add(m)
    progress.made(m, made, accelerator=True)


def _generalized(progress: _Progress, m: Migration) -> None:
    """A one-device class generalized; else, refused with why, instantiated
    for its device when it can be."""
    try:
        if m.blocked is not None:
            raise Refusal.blocked(m.blocked)
        progress.data, made = generalize(progress.data, m, progress.config, progress.facts_of)
    except Refusal as refusal:
        if m.blocked is None and refusal.blocker is not None and refusal.blocker.site in ANY_GPU_NAMES:
            again = _any_gpu_generalized(progress, m, refusal.blocker)
            if again is None:
                return
            refusal = again  # GPU_TYPE has its rewrite: what blocked is what the any-gpu way refused
        # The one-device classification hwlint.fix.apply wrote stays,
        # as a class instantiated for that device when it can be.
        progress.refused.append(refusal.of(m))
        if left_unclassified(m.member, progress.config.classifications) is not None or m.blocked is not None:
            # Not configured, or no one device: the class stays unclassified,
            # with why. Bound by a base: as the base leaves it.
            return
        if any(r.mixed and r.migration.class_name == m.class_name for r in progress.refused):
            return  # its split was refused, with why: left (hwlint.fix.apply)
        free = device_free_tests(progress.data, m, progress.config, progress.facts_of)
        if free:
            # Device-free tests ran on CPU runners: instantiated for its device
            # alone, they would not. Left for a human (hwlint.fix.apply), as a
            # class whose split is refused is.
            device = m.member.lower()
            why = (
                f"not split: {listed(free)} use{'s' if len(free) == 1 else ''} no device and ran on CPU runners: "
                f'instantiated only_for="{device}", the class would take {"it" if len(free) == 1 else "them"} '
                f"off; split it by hand (GENERIC and {m.member})"
            )
            progress.refused.append(Refused(m._replace(kind="split"), why, mixed=True))
            return
        try:
            _refuse_named_as_data(progress, m)
            progress.data, instantiated = device_class(progress.data, m, progress.config, progress.facts_of)
        except Refusal as not_instantiated:
            # Declared its device's but not instantiated, the class would be a
            # finding of its own (HWC101, HWC102 on each test): left, with why.
            # (Its blocker without a line: a line of the file as declared, which the class is not left.)
            blocked = refusal.blocker.describe(line=False) if refusal.blocker is not None else refusal.reason
            only = f'instantiated only_for="{m.member.lower()}"'
            why = (
                f"neither made device-generic nor {only}: {not_instantiated.reason}"
                if not_instantiated.reason in blocked  # (the same reason twice: once)
                else f"not generalized: {blocked}; not {only}: {not_instantiated.reason}"
            )
            refused = Refused(m._replace(kind="device-tests"), why, blocker=refusal.blocker, mixed=True)
            progress.refused.append(refused)
            return
        progress.made(m, instantiated, accelerator=False)
        return
    progress.made(m, made, accelerator=True)


def _refuse_named_as_data(progress: _Progress, m: Migration) -> None:
    """Refusal when the class names its device only as data
    (hwlint.fix.migrate.data_strings): instantiated for that device alone,
    tests that passed on CPU runners would leave them."""
    facts = progress.facts_of(progress.data)
    info = class_facts(facts, m.class_name, m.occurrence)
    site = only_as_data(progress.data, info, facts) if info is not None else None
    if site is not None:
        raise Refusal(
            # (No line: one of the file as declared, which the class is not left.)
            f"its tests name {m.member.lower()} only as data (`{site.text}` goes only to what the module imports, "
            f"placing nothing it shows), and may pass on CPU runners: classify it by hand (GENERIC, or {m.member})"
        )


def _any_gpu_generalized(progress: _Progress, m: Migration, gpu_type: Blocker) -> Refusal | None:
    """A one-device class whose tests also run on GPU_TYPE (inductor's
    `device=GPU_TYPE` beside `torch.cuda.max_memory_allocated()`), which
    generalize refuses (GPU_TYPE is no device of its to rewrite): made a
    GPU_TYPE class's way (hwlint.fix.migrate.any_gpu), then its device's
    uses given their device-generic rewrites, as PyTorch's contributors
    migrate such a class. None when made; else, nothing made, the Refusal
    saying why: the use of the device with no rewrite (at its line in the
    file as the migrations read it), or `gpu_type` (generalize's blocker)
    with why the any-gpu way was refused."""
    state = ModuleEdits(parse_module(progress.data, MigrateError), progress.config)
    try:
        index = find_class(state.body, m.class_name, m.occurrence)
        made = any_gpu(state, m._replace(kind="any-gpu"), index, progress.facts_of(progress.data))
        cls = state.body[index]
        assert isinstance(cls, cst.ClassDef)
        # The one-device declaration hwlint.fix.apply wrote, changed rather than doubled.
        declared = redeclare(cls, progress.config.attribute, state.declare[index])
        if declared is not None:
            state.body[index] = declared
            del state.declare[index]
        data, rewritten = gpu_type_class_generalized(
            write_class_level(state).bytes, m, progress.config, progress.facts_of
        )
    except Refusal as refusal:
        if refusal.blocker is None:
            blocker = gpu_type._replace(why=f"has no device-generic rewrite here: {refusal.reason}")
        else:
            # Its line there, not in the any-gpu version (which dropped decorators and attributes).
            blocker = refusal.blocker._replace(line=_line_of(progress.data, refusal.blocker))
        return Refusal.blocked(blocker)
    progress.data = data
    progress.tried.update(x for x in progress.migrations if x.class_name == m.class_name)
    uses = f"{rewritten} use{'s' if rewritten != 1 else ''} of {m.member} given device-generic rewrites"
    # Made device-generic, as generalize makes a class: its one-device declaration goes.
    progress.made(m, made._replace(kind="generalize", detail=f"{made.detail}; {uses}"), accelerator=True)
    return None


def _line_of(data: bytes, blocker: Blocker) -> int:
    """The line of `data` holding the blocker's code nearest its line in another version."""
    first = blocker.site.splitlines()[0] if blocker.site else ""
    lines = [n for n, text in enumerate(data.decode("utf-8", "replace").splitlines(), 1) if first and first in text]
    return min(lines, key=lambda n: abs(n - blocker.line), default=blocker.line)


def _split(progress: _Progress, m: Migration) -> None:
    """A mixed class split by test (hwlint.fix.migrate.split); made, the
    class's other migrations are not tried (it is gone), and the
    ACCELERATOR tests' migration is tried on the class of its device tests."""
    try:
        progress.data, made, moves = split(progress.data, m, progress.config, progress.facts_of)
    except Refusal as refusal:
        progress.refused.append(refusal.of(m))
        return
    progress.tried.update(x for x in progress.migrations if x.class_name == m.class_name)
    progress.accelerator = [a for a in progress.accelerator if a.class_name != m.class_name]
    progress.moves.extend(moves)
    generic, accelerator = made
    progress.made(m, generic, accelerator=False)
    # A class of one device (the device tests stayed its) is not made device-generic next.
    to = m._replace(class_name=accelerator.to_class, occurrence=0)
    progress.made(to, accelerator, accelerator=accelerator.member == "ACCELERATOR")


# The migrations that rewrite the whole file, by the plan's kind: tried
# first, each on the bytes the one before made.
_WHOLE_FILE: dict[MigrationKind, Callable[[_Progress, Migration], None]] = {
    "device-param": _default_device_generalized,
    "generalize": _generalized,
    "split": _split,
}
# The class-level migrations, by the plan's kind: made on one tree of the
# bytes the whole-file ones left, written at once.
_CLASS_LEVEL: dict[MigrationKind, Callable[[ModuleEdits, Migration, int, ModuleFacts], Done]] = {
    "only-for": only_for,
    "device-param": migrate_device_param,
    "any-gpu": any_gpu,
    "device-tests": device_tests,
}
# Kinds the class-level phase leaves alone: the tests' migrations come
# last, a one-device class is done with after the whole-file phase.
_NOT_CLASS_LEVEL: tuple[MigrationKind, ...] = ("accelerator-tests", "generalize", "split")


def migrate_source(
    data: bytes, migrations: Sequence[Migration], config: Config, extract: Callable[[bytes], ModuleFacts]
) -> MigrationResult:
    """The module with `migrations` made where the tree allows them; the
    others refused with the reason. MigrateError when libcst cannot
    parse it. `extract` gives a version's facts (the tests' migrations
    read them after the class-level ones)."""
    progress = _Progress(data, migrations, config, extract)
    migrations = _instantiable_classes(progress, migrations)
    for m in migrations:
        whole_file = _WHOLE_FILE.get(m.kind)
        if whole_file is not None and m not in progress.tried:
            whole_file(progress, m)
    module = parse_module(progress.data, MigrateError)
    state = ModuleEdits(module, config)
    facts = progress.facts_of(progress.data)
    edited = False  # a class-level migration made (some only edit a class's tests)
    for m in migrations:
        if m.kind in _NOT_CLASS_LEVEL or m in progress.tried:
            continue
        try:
            where = find_class(state.body, m.class_name, m.occurrence)
            class_level = _CLASS_LEVEL.get(m.kind)
            if class_level is None:
                raise Refusal(f"no migration of kind {m.kind}")
            result = class_level(state, m, where, facts)
        except Refusal as refusal:
            progress.refused.append(refusal.of(m))
            continue
        progress.made(m, result, accelerator=result.member == "ACCELERATOR")
        edited = True
    fixed = progress.data
    if edited:
        module = write_class_level(state)
        fixed = module.bytes
        facts = progress.facts_of(fixed)
    moves: tuple[ClassMove, ...] = tuple(progress.moves)
    if progress.accelerator:
        # The tree as written, and the facts of its bytes: their lines match.
        module, tests_done, tests_refused = accelerator_tests(module, progress.accelerator, config, facts)
        progress.done.extend(tests_done)
        progress.refused.extend(tests_refused)
        moves = (*moves, *_class_moves(tests_done))
        if tests_done:
            fixed = module.bytes
    done = progress.done
    return MigrationResult(fixed if done else data, tuple(done), tuple(progress.refused), moves)


def _instantiable_classes(progress: _Progress, migrations: Sequence[Migration]) -> list[Migration]:
    """The migrations of classes the device framework can instantiate; those
    of a pytest-style class (no base but `object`, and no class of the
    module derives from it: torchao's `class TestFloat8TrainingTensor:` with
    `@pytest.mark.parametrize`) refused, with why, and the class left: no
    migration of it would run (instantiate_device_type_tests makes
    TestCase classes, and its import would fail)."""
    facts = progress.facts_of(progress.data)
    derived = {base_name(b) for c in facts.classes for b in c.bases}
    kept = []
    for m in migrations:
        info = class_facts(facts, m.class_name, m.occurrence)
        if info is None or any(b != "object" for b in info.bases) or m.class_name in derived:
            kept.append(m)
            continue
        why = f"{m.class_name} derives from no TestCase (a pytest class): the device framework cannot instantiate it"
        progress.refused.append(Refused(m._replace(kind="device-tests"), why, mixed=True))
    return kept


def _class_moves(tests_done: Sequence[Done]) -> tuple[ClassMove, ...]:
    """The tests moved to another class, by the class they left and the one
    they are in now, with the device types they still run on."""
    moved: dict[tuple[str, str], list[Done]] = {}
    for d in tests_done:
        if d.to_class:
            moved.setdefault((d.class_name, d.to_class), []).append(d)
    moves = []
    for (old, new), ds in moved.items():
        member = ds[0].member or ""
        # The types the tests still run on: the device, or those an @onlyOn named (their classes).
        devices: tuple[str, ...] = (
            (member.lower(),) if member != "ACCELERATOR" else tuple(c[len(new) :].lower() for c in ds[0].collected)
        )
        moves.append(ClassMove(old, new, tuple(d.method for d in ds), devices))
    return tuple(moves)
