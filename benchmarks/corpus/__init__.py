"""Deterministic synthetic PyTorch-style test tree, for benchmarks and scale tests.

A package that tests and benchmarks import (`from benchmarks.corpus import
generate`), in the order it is made: `shape` (targets and the plan), `text`
(statements), `render` (files), `generate` (the tree on disk and its
statistics), `verify` (the tree re-read with `ast`).

The shape follows ``corpus-facts.md`` (1,926 real test files, 34.7 MB): file
sizes, test classes per file, test methods per class, device parameters,
``instantiate_device_type_tests`` calls and decorator frequencies. Nothing is
downloaded, so every figure can be reproduced anywhere::

    python -m benchmarks.corpus OUT_DIR [--files 2000] [--seed 0] [--verify]

The tree carries its own ground truth: ``allowlist.txt`` lists every file with
unclassified test classes (budget = their number), ``pyproject.toml`` sets
``baseline`` to that count, and ``.hwlint-corpus.json`` records what was
generated (the deliberate syntax-error and invalid-escape files, class counts
by classification, ...). Classified classes are written the way the rules want
them (ACCELERATOR classes take ``device`` and are instantiated, GENERIC classes
neither take ``device`` nor probe an accelerator, device-specific ``@only*``
decorators sit only on CPU/CUDA or unclassified classes), so on the default
rule set the expected diagnostics are exactly: one HWC000 per syntax-error file
and nothing else (the allowlisted files are at their budget).

Only ``random.Random(seed)`` drives choices, and nothing depends on hash order
or the clock: the same ``files``/``seed`` give a byte-identical tree.
"""

from .generate import MARKER, compare, generate, percentile
from .verify import census, verify

__all__ = ["MARKER", "census", "compare", "generate", "percentile", "verify"]
