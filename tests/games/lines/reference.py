"""An independent, slow, obvious implementation of the line-game rules, to test the kernel
and the exact calculator against. It reads the model spec, not the compiled arrays."""

from __future__ import annotations

from slotlab.games.lines.model import LineModelSpec

Window = list[list[str]]  # window[reel][row]


def line_pay(spec: LineModelSpec, window: Window, line: list[int]) -> tuple[int, str, int, int]:
    """(units, symbol, count, multiplier) of the best pay on one line, units 0 if none."""
    symbols = [window[r][row] for r, row in enumerate(line)]
    wild = spec.wild.symbol if spec.wild else None
    scatter = spec.scatter.symbol if spec.scatter else None

    def substitutes(target: str) -> bool:
        if wild is None or target in (wild, scatter):
            return False
        return spec.wild.substitutes == "all" or target in spec.wild.substitutes

    options = [(0, "", 0, 1)]
    wild_run = 0
    while wild is not None and wild_run < len(symbols) and symbols[wild_run] == wild:
        wild_run += 1
    if wild_run:
        options.append((spec.pays.get(wild, {}).get(wild_run, 0), wild, wild_run, 1))
    # every symbol that could head a substituted run: the first non-wild one
    if wild_run < len(symbols):
        target = symbols[wild_run]
        if wild_run == 0 or substitutes(target):
            run, n_wild = 0, 0
            for s in symbols:
                if s == target:
                    run += 1
                elif s == wild and substitutes(target):
                    run += 1
                    n_wild += 1
                else:
                    break
            pay = spec.pays.get(target, {}).get(run, 0)
            mult = 1
            if pay and n_wild and spec.wild.multiplier > 1:
                mult = (spec.wild.multiplier ** n_wild if spec.wild.multiplier_mode == "each"
                        else spec.wild.multiplier)
            options.append((pay * mult, target, run, mult))
    return max(options, key=lambda o: o[0])


def spin_pays(spec: LineModelSpec, window: Window) -> tuple[int, int, int]:
    """(line units, scatter units, scatter count) of one window, before any multiplier."""
    lines = sum(line_pay(spec, window, line)[0] for line in spec.lines)
    count = 0
    if spec.scatter is not None:
        count = sum(s == spec.scatter.symbol for reel in window for s in reel)
    scatter = spec.scatter.pays.get(count, 0) if spec.scatter else 0
    return lines, scatter, count


def window_at(spec: LineModelSpec, reel_set: str, stops: tuple[int, ...]) -> Window:
    strips = spec.strips[reel_set]
    return [[strip[(stop + k) % len(strip)] for k in range(spec.rows)]
            for strip, stop in zip(strips, stops, strict=True)]
