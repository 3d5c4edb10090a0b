"""slotlab: an open platform for slot games."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


# The modules compiled kernels are made of: the random streams, the shared mechanics, the games.
_KERNEL_SOURCES = ("rng.py", "mechanics", "games")


def _source_digest(parts: tuple[str, ...] = ()) -> str:
    """A digest of the package's Python source, or of the named files and folders of it."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    paths = root.rglob("*.py") if not parts else (
        path for part in parts for path in
        ((root / part).rglob("*.py") if (root / part).is_dir() else [root / part]))
    for path in sorted(paths):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_DIGEST = _source_digest()[:16]
CODE_VERSION = f"slotlab {__version__}+{_DIGEST}"  # stamped on every round

# Numba's disk cache is invalidated by a change to the cached function's own file only, not to
# the functions it compiled in from other modules (rng, mechanics). Keying the cache folder on
# the kernels' sources makes any change to them recompile, and a change to the server does not.
# Set before any module imports numba.
_KERNEL_DIGEST = _source_digest(_KERNEL_SOURCES)[:16]
os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "slotlab" / "numba"
        / f"{__version__}+{_KERNEL_DIGEST}"),
)
