"""Array views without reference counting, for the hot loops of simulation kernels.

Passing an array to a compiled function costs an atomic increment and decrement of its reference
count; with many arrays per call and several calls per round that was most of a round's time.
A view without a count (null meminfo) skips those, so a simulation loop takes such views once of
arrays its caller keeps alive for the whole call. This reaches into numba's array model
(``cgutils``), so a numba upgrade may need a look here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numba.core import cgutils
from numba.extending import intrinsic

_Arrays = TypeVar("_Arrays", bound=tuple[np.ndarray, ...])


if TYPE_CHECKING:
    # What compiled code sees: the intrinsics' typing context is numba's, not an argument.
    def unmanaged(arr: np.ndarray) -> np.ndarray: ...

    def unmanaged_all(arrays: _Arrays) -> _Arrays: ...
else:
    def _uncounted(context: Any, builder: Any, ty: Any, value: Any) -> Any:
        """The array ``value`` of type ``ty`` with no meminfo (so no reference count) and no
        parent object."""
        ary = context.make_array(ty)(context, builder, value=value)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()

    @intrinsic
    def unmanaged(typingctx: Any, arr: Any) -> Any:
        """A view of ``arr`` without its reference count, valid while ``arr`` lives; it must
        never leave the loop that made it."""
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return _uncounted(context, builder, arr, args[0])

        return arr(arr), codegen

    @intrinsic
    def unmanaged_all(typingctx: Any, arrays: Any) -> Any:
        """:func:`unmanaged` of every array in a tuple. A compiled function that takes arrays
        from its caller takes this first: its reference counts are then known to be none, and
        LLVM drops every count operation of its body (an argument's could be any)."""
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            out = args[0]
            for i, ty in enumerate(arrays.types):
                item = _uncounted(context, builder, ty, builder.extract_value(args[0], i))
                out = builder.insert_value(out, item, i)
            return out

        return arrays(arrays), codegen
