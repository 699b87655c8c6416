"""A GPU_TYPE class's methods rewritten for the any-gpu migration
(hwlint.fix.migrate.any_gpu) and a GPU_TYPE class's split
(hwlint.fix.migrate.split_classes): each use of `GPU_TYPE`, and of the
class attributes set to it, becomes the test's `device` where it places a
tensor and `self.device_type` elsewhere; a test is given `device`."""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from hwlint.facts.devices import ANY_GPU_NAMES
from hwlint.fix.edits import dotted
from hwlint.fix.migrate.any_gpu_decorators import decorators_migrated
from hwlint.fix.migrate.outcome import Refusal
from hwlint.fix.migrate.parameters import with_device
from hwlint.fix.migrate.tree import decorator_name, device_parameter, node_uses

# The class attributes contributors set to GPU_TYPE.
_ATTRIBUTES = ("device", "device_type")


def gpu_attribute(stmt: cst.BaseStatement, names: frozenset[str] = ANY_GPU_NAMES) -> str | None:
    """`device` or `device_type` when `stmt` is `device = GPU_TYPE` (or
    `device_type: str = GPU_TYPE`; `names`: GPU_TYPE and what else spells it)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target, value = small.targets[0].target, small.value
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        target, value = small.target, small.value
    else:
        return None
    if isinstance(target, cst.Name) and target.value in _ATTRIBUTES and dotted(value) in names:
        return target.value
    return None


class MethodMigrated(NamedTuple):
    """A method migrated: the method, how many uses of GPU_TYPE were
    rewritten, whether it is a test, and the device framework's names its
    decorators now use (hwlint.fix.migrate.any_gpu_decorators)."""

    fn: cst.FunctionDef
    uses: int
    test: bool
    needs: frozenset[str]


def method_migrated(fn: cst.FunctionDef, attributes: tuple[str, ...]) -> MethodMigrated:
    """The method with its uses of GPU_TYPE (and of the attributes the
    class set to it) rewritten, and, a test, given `device` (see
    `MethodMigrated`). Refusal, with why, when a use cannot be."""
    name = fn.name.value
    test = name.startswith("test")
    static = next(
        (decorator_name(d) for d in fn.decorators if decorator_name(d) in ("staticmethod", "classmethod")), None
    )
    decorated = decorators_migrated(fn.decorators, helper=not test)
    fn = fn.with_changes(decorators=decorated.decorators)
    if any(node_uses(d, g) for d in fn.decorators for g in ANY_GPU_NAMES):
        raise Refusal(f"a decorator of {name} uses GPU_TYPE, which runs when the class is defined: migrate by hand")
    if any(node_uses(fn.params, g) for g in ANY_GPU_NAMES):
        raise Refusal(f"a default of {name}'s parameters is GPU_TYPE, set when the class is defined: migrate by hand")
    params = [*fn.params.posonly_params, *fn.params.params]
    me = params[0].name.value if params and static != "staticmethod" else ""
    uses = _Uses(name, me, test, attributes, _bound_in(fn.body))
    new_body = fn.body.visit(uses)
    if uses.refusal:
        raise Refusal(uses.refusal)
    assert isinstance(new_body, cst.BaseSuite)
    new_fn = fn.with_changes(body=new_body)
    if test:
        taken = device_parameter(fn)
        if taken is not None:
            raise Refusal(f"{name} already takes `{taken.name.value}`: migrate by hand")
        if _parametrizes_device(fn):
            raise Refusal(f"{name} gets `device` from @parametrize, not from the device framework: migrate by hand")
        given = with_device(fn.params)
        if given is None or static:
            raise Refusal(f"{name} has no `self` to put `device` after")
        new_fn = new_fn.with_changes(params=given)
    return MethodMigrated(new_fn, uses.count + decorated.rewritten, test, decorated.needs)


def accelerator_type_rewritten(fn: cst.FunctionDef, names: frozenset[str]) -> tuple[cst.FunctionDef, int]:
    """A method of a device-generic class with its uses of `names`,
    module-level names bound to the machine's accelerator type
    (`device_type = acc.type if (acc := torch.accelerator.current_accelerator())
    else "cpu"`), rewritten as GPU_TYPE's are: `device` where a test places
    a tensor, `self.device_type` elsewhere (what the name was on the machine
    that ran the test); how many. Refusal, with why, when a use cannot be."""
    if not any(node_uses(fn, n) for n in names):
        return fn, 0
    if any(node_uses(d, n) for d in fn.decorators for n in names) or any(node_uses(fn.params, n) for n in names):
        raise Refusal(f"{fn.name.value} uses {sorted(names)[0]} when the class is defined: migrate by hand")
    static = any(decorator_name(d) == "staticmethod" for d in fn.decorators)
    params = [*fn.params.posonly_params, *fn.params.params]
    me = params[0].name.value if params and not static else ""
    test = fn.name.value.startswith("test") and device_parameter(fn) is not None
    uses = _Uses(fn.name.value, me, test, (), _bound_in(fn.body), names)
    new_body = fn.body.visit(uses)
    if uses.refusal:
        raise Refusal(uses.refusal)
    assert isinstance(new_body, cst.BaseSuite)
    return fn.with_changes(body=new_body), uses.count


def _parametrizes_device(fn: cst.FunctionDef) -> bool:
    """Whether a `@parametrize("device, ...", ...)`-style decorator names `device`."""
    for d in fn.decorators:
        call = d.decorator
        if isinstance(call, cst.Call) and decorator_name(d).startswith("parametrize") and call.args:
            first = call.args[0].value
            if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str):
                if "device" in (n.strip() for n in first.evaluated_value.split(",")):
                    return True
    return False


class _Uses(cst.CSTTransformer):
    """One method's body with GPU_TYPE, and `self.device`/`self.device_type`
    when the class set them to it, rewritten: `device` where a test places
    a tensor, `self.device_type` anywhere else (what GPU_TYPE was). Scopes
    nested in the method that rebind `device` or `self` are followed; where
    a use cannot be rewritten, `refusal` says why."""

    def __init__(
        self,
        method: str,
        me: str,
        test: bool,
        attributes: tuple[str, ...],
        local: set[str],
        names: frozenset[str] = ANY_GPU_NAMES,
    ) -> None:
        super().__init__()
        self.method, self.me, self.test, self.attributes = method, me, test, attributes
        self.names = names  # GPU_TYPE, or the module's own name for the machine's accelerator type
        self.local = local  # the names the method's own scope binds
        self.scopes: list[set[str]] = []  # names bound by each nested scope the walk is in
        self.placing: set[int] = set()  # ids of the expressions that place a tensor
        self.skip: set[int] = set()  # ids of names that are no use (keywords, attributes' names)
        self.count = 0
        self.refusal = ""

    # -- where the walk is -------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(_bound_in(node) | {p.name.value for p in _all_params(node.params)})

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.scopes.pop()
        return updated_node

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.scopes.append({p.name.value for p in _all_params(node.params)})

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda) -> cst.BaseExpression:
        self.scopes.pop()
        return updated_node

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.append(_bound_in(node))

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.scopes.pop()
        return updated_node

    def visit_CompFor(self, node: cst.CompFor) -> None:
        # A comprehension's variables shadow the method's from where they are bound on.
        self.scopes.append(_bound_in(node.target))

    def leave_CompFor(self, original_node: cst.CompFor, updated_node: cst.CompFor) -> cst.CompFor:
        self.scopes.pop()
        return updated_node

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
            if node.keyword.value == "device":
                self.placing.add(id(node.value))

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "to" and node.args:
            if node.args[0].keyword is None:
                self.placing.add(id(node.args[0].value))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(id(node.attr))
        if node.attr.value in self.names:
            self._refuse(f"{self.method} reads {dotted(node) or node.attr.value}: migrate by hand")

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if dotted(node.name).rsplit(".", 1)[-1] in self.names:
            self._refuse(f"{self.method} imports {dotted(node.name)} itself: migrate by hand")

    # -- the rewrites ------------------------------------------------------

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if original_node.value not in self.names or id(original_node) in self.skip:
            return updated_node
        if original_node.value in self.local or original_node.value in self._shadowed():
            self._refuse(f"{self.method} binds {original_node.value} itself: migrate by hand")
            return updated_node
        return self._replacement(original_node, updated_node)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        attr = original_node.attr.value
        if attr not in self.attributes or not self.me:
            return updated_node
        owner = original_node.value
        if isinstance(owner, cst.Name) and owner.value == self.me:
            if self.me in self._shadowed():
                return updated_node  # another object's attribute, in a nested scope
            if attr == "device_type" and not (self.test and id(original_node) in self.placing):
                return updated_node  # the framework's own attribute: still right
            return self._replacement(original_node, updated_node)
        if isinstance(owner, cst.Call) and dotted(owner.func) == "type" or dotted(owner).endswith("__class__"):
            self._refuse(f"{self.method} reads the class's `{attr}` through its type: migrate by hand")
        return updated_node

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        for t in original_node.targets:
            self._refuse_store(t.target)
        return updated_node

    def leave_AugAssign(self, original_node: cst.AugAssign, updated_node: cst.AugAssign) -> cst.AugAssign:
        self._refuse_store(original_node.target)
        return updated_node

    def _refuse_store(self, target: cst.BaseExpression) -> None:
        if (
            isinstance(target, cst.Attribute)
            and target.attr.value in self.attributes
            and dotted(target.value) == self.me
            and self.me
        ):
            self._refuse(f"{self.method} sets {self.me}.{target.attr.value}: migrate by hand")

    def _replacement(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        shadowed = self._shadowed()
        if self.test and id(original) in self.placing:
            if "device" in shadowed or "device" in self.local:
                self._refuse(f"{self.method} binds the name `device` itself, where GPU_TYPE places a tensor")
                return updated
            self.count += 1
            return cst.Name("device")
        if not self.me or self.me in shadowed:
            where = "a static method" if not self.me else f"a nested scope that rebinds `{self.me}`"
            used = "GPU_TYPE" if self.names == ANY_GPU_NAMES else "the machine's accelerator type"
            self._refuse(f"{self.method} uses {used} in {where}: nothing there says the device type")
            return updated
        self.count += 1
        return cst.Attribute(value=cst.Name(self.me), attr=cst.Name("device_type"))

    def _shadowed(self) -> set[str]:
        return set().union(*self.scopes) if self.scopes else set()

    def _refuse(self, reason: str) -> None:
        self.refusal = self.refusal or reason


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwarg = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwarg]


class _Stores(cst.CSTVisitor):
    """The names a node binds (assignments, loop and `with` targets, walrus,
    imports, `except ... as`), its own nested functions' and classes' names
    included, their insides not."""

    def __init__(self, root: cst.CSTNode) -> None:
        super().__init__()
        self.root = root
        self.names: set[str] = set()

    def _nested(self, node: cst.CSTNode) -> bool:
        return node is not self.root

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self._nested(node):
            self.names.add(node.name.value)
            return False
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if self._nested(node):
            self.names.add(node.name.value)
            return False
        return True

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names |= _target_names(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.names |= _target_names(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.names |= _target_names(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.names |= _target_names(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.names |= _target_names(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self.names |= _target_names(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.names |= _target_names(node.target)


def _target_names(target: cst.BaseExpression) -> set[str]:
    """The plain names a target binds (`a`, `a, (b, *c)`); an attribute or a subscript binds none."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(set(), *(_target_names(e.value) for e in target.elements))
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()


def _bound_in(node: cst.CSTNode) -> set[str]:
    """The names `node` binds in its own scope (a target: the names it binds)."""
    if isinstance(node, cst.BaseExpression):
        return _target_names(node)
    stores = _Stores(node)
    node.visit(stores)
    return stores.names
