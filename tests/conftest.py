"""Imported before any test module: slotlab first, so that numba, whenever a test imports it,
caches its kernels in the folder keyed on the package's source (see slotlab/__init__.py), never
beside the sources where a kernel could keep the old code of a module it inlined."""

import slotlab  # noqa: F401
