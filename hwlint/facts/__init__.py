"""Facts: what a test module contains, reduced to small plain records.

The module is parsed once with the standard library's `ast`, walked once, and
the tree is dropped: rules never see syntax, only these records. They are
small and picklable, so worker processes send them back cheaply and a cache
can keep them.

The package, bottom up: `vocabulary` (what counts as an accelerator),
`records` (the NamedTuples), `prescan` (what the text says before parsing:
lines, skip-file, noqa, accelerator lines), `dynamic` (statements that may
make test classes at run time), the extractor's parts (`module_text`: the
text and the lines its tokens are on; `backends`: collective backends;
`requirements`: what a skip needs; `device_sites`: probes and hard-coded
devices; `classes`: a class's facts; `module_walk`: the top level),
`extract` (source to ModuleFacts: the entry points), `codec` (ModuleFacts
to the compact form and back). Beside them, the stages around facts:
`discover`, `read`, `collect`, `resolve`.

Importing `hwlint.facts` gives the names other layers use; each is defined in
one of the modules above.
"""

# Every module below is needed by any run that has facts to make or decode
# (collect imports the extractor and the codec): importing them here costs a
# one-file `check` nothing it did not already load.
from hwlint.facts.codec import FACTS_VERSION, SCHEMA, from_blob, from_tuple, to_blob, to_tuple
from hwlint.facts.dynamic import dynamic_sites
from hwlint.facts.extract import extract_file, extract_source, facts_from_tree
from hwlint.facts.prescan import accelerator_lines, is_skipped, split_lines
from hwlint.facts.records import (
    Branch,
    ClassFacts,
    Declaration,
    DeviceBinding,
    Dynamic,
    FoundDevice,
    Import,
    Instantiation,
    Method,
    ModuleFacts,
    Site,
    Value,
)
from hwlint.facts.vocabulary import DEFAULT_ACCELERATORS, INSTANTIATE, Accelerators

__all__ = [
    "DEFAULT_ACCELERATORS",
    "FACTS_VERSION",
    "INSTANTIATE",
    "SCHEMA",
    "Accelerators",
    "Branch",
    "ClassFacts",
    "Declaration",
    "DeviceBinding",
    "FoundDevice",
    "Dynamic",
    "Import",
    "Instantiation",
    "Method",
    "ModuleFacts",
    "Site",
    "Value",
    "accelerator_lines",
    "dynamic_sites",
    "extract_file",
    "extract_source",
    "facts_from_tree",
    "from_blob",
    "from_tuple",
    "is_skipped",
    "split_lines",
    "to_blob",
    "to_tuple",
]
