"""slotlab: an open platform for slot games."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


def _source_digest() -> str:
    """A digest of the package's Python source (also the code version stamped on rounds)."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_DIGEST = _source_digest()[:16]
CODE_VERSION = f"slotlab {__version__}+{_DIGEST}"  # stamped on every round

# Numba's disk cache is invalidated by a change to the cached function's own file only, not to
# the functions it compiled in from other modules (rng, stats). Keying the cache folder on the
# whole package's source makes any change recompile. Set before any module imports numba.
os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "slotlab" / "numba"
        / f"{__version__}+{_DIGEST}"),
)
