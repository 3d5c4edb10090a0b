"""PAR sheets: exact figures and a simulation side by side, as Markdown with plots.

``write_par_sheet`` writes ``par.md``, ``par.json`` and three PNG plots into a folder: the win
distribution, the simulated RTP converging on the exact one inside its 99 % envelope, and the
RTP split. Every figure is stamped with the model hash.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from slotlab.simulate.runner import Chunk, Simulatable, simulate
from slotlab.simulate.stats import ACC_SPINS, ACC_WIN, Z99, band_labels


def _md_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(none)\n"
    keys = list(rows[0])
    lines = ["| " + " | ".join(k.replace("_", " ") for k in keys) + " |",
             "|" + "---|" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(_fmt(row[k]) for k in keys) + " |")
    return "\n".join(lines) + "\n"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return "-" if value is None else str(value)


def _plots(out: Path, sim: dict[str, Any], exact: dict[str, Any] | None,
           curve: list[tuple[int, float]]) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    fig, ax = plt.subplots(figsize=(8, 4))
    labels = band_labels()
    counts = [sim["win_bands"][k] for k in labels]
    ax.bar(range(len(labels)), [c / sim["spins"] for c in counts], color="#3b6ea8")
    ax.set_xticks(range(len(labels)), labels, rotation=40, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("share of rounds")
    ax.set_title("Win distribution (win / total bet)")
    fig.tight_layout()
    fig.savefig(out / "win-distribution.png", dpi=110)
    plt.close(fig)
    names.append("win-distribution.png")

    fig, ax = plt.subplots(figsize=(8, 4))
    spins = np.array([n for n, _ in curve], dtype=float)
    rtp = np.array([r for _, r in curve])
    ax.plot(spins, rtp, marker="o", ms=3, label="simulated RTP")
    if exact is not None:
        target = exact["rtp"]
        half = Z99 * sim["sd"] / np.sqrt(spins)
        ax.axhline(target, color="black", lw=1, label="exact RTP")
        ax.fill_between(spins, target - half, target + half, alpha=0.2,
                        label="99% envelope around exact")
    ax.set_xscale("log")
    ax.set_xlabel("rounds")
    ax.set_ylabel("RTP")
    ax.set_title("Simulated RTP converging")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "rtp-convergence.png", dpi=110)
    plt.close(fig)
    names.append("rtp-convergence.png")

    fig, ax = plt.subplots(figsize=(8, 3.5))
    comps = sim["rtp_components"]
    keys = list(comps)
    x = np.arange(len(keys))
    ax.bar(x - 0.2, [comps[k] for k in keys], width=0.4, label="simulated")
    if exact is not None:
        ex = exact.get("components", {})
        ax.bar(x + 0.2, [ex.get(k, {}).get("rtp", 0.0) for k in keys], width=0.4,
               label="exact")
    ax.set_xticks(x, keys, rotation=30, ha="right")  # games split into up to 16 parts
    ax.set_ylabel("RTP contribution")
    ax.set_title("RTP split")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "rtp-split.png", dpi=110)
    plt.close(fig)
    names.append("rtp-split.png")
    return names


def write_par_sheet(game: Simulatable, game_ref: str, bet: int, spins: int, out: Path,
                    seed: int = 0, workers: int = 1, chunk_spins: int | None = None) -> Path:
    """Compute and write the PAR sheet of ``game`` at ``bet``; returns the Markdown path."""
    out.mkdir(parents=True, exist_ok=True)
    exact_fn = getattr(game, "exact", None)
    exact = exact_fn(bet) if exact_fn is not None else None
    chunk = chunk_spins or max(1, min(1 << 20, math.ceil(spins / 40)))
    curve: list[tuple[int, float]] = []
    totals = [0, 0]

    def on_chunk(c: Chunk) -> None:
        totals[0] += int(c[0][ACC_SPINS])
        totals[1] += int(c[0][ACC_WIN])
        curve.append((totals[0], totals[1] / (totals[0] * bet)))

    result = simulate(game, game_ref, bet, spins, seed=seed, workers=workers,
                      chunk_spins=chunk, on_chunk=on_chunk)
    sim = result.to_json()
    plots = _plots(out, sim, exact, curve)
    name = getattr(game, "name", game.id)
    md = [f"# PAR sheet: {name}", "",
          f"Model `{game.model_hash}`, total bet {bet} credits.", "", "## Summary", ""]
    summary = [{"figure": "RTP", "exact": exact["rtp"] if exact else None,
                "simulated": sim["rtp"]},
               {"figure": "RTP 99% interval (simulated)", "exact": None,
                "simulated": f"{sim['ci99'][0]:.6f} .. {sim['ci99'][1]:.6f}"},
               {"figure": "hit rate", "exact": exact.get("hit_rate") if exact else None,
                "simulated": sim["hit_rate"]},
               {"figure": "standard deviation (per round, x bet)",
                "exact": exact.get("sd") if exact else None, "simulated": sim["sd"]},
               {"figure": "volatility index (90%)",
                "exact": exact.get("volatility_index_90") if exact else None,
                "simulated": sim["volatility_index_90"]},
               {"figure": "max win (credits)", "exact": exact.get("max_win") if exact else None,
                "simulated": sim["max_win"]},
               {"figure": "feature one in", "exact": exact.get("free_spins_one_in") if exact
                else None, "simulated": sim["feature_one_in"]},
               {"figure": "rounds simulated", "exact": exact.get("spins") if exact else None,
                "simulated": sim["spins"]}]
    md.append(_md_table(summary))
    if exact is not None:
        fraction = exact["rtp_fraction"]
        if len(fraction) > 120:  # capped retriggers make long denominators; par.json has it
            digits = len(fraction.split("/")[1])
            fraction = f"a fraction with a {digits}-digit denominator (in par.json)"
        md += [f"Exact RTP: `{fraction}`.", ""]
        for note in exact.get("notes", []):
            md.append(f"* {note}")
        md.append("")
        for title, rows in exact.get("tables", {}).items():
            md += [f"## {title}", "", _md_table(rows)]
    md += ["## Plots", ""] + [f"![{p}]({p})" for p in plots] + [""]
    path = out / "par.md"
    path.write_text("\n".join(md))
    (out / "par.json").write_text(json.dumps({"exact": exact, "simulation": sim,
                                              "chunk_spins": chunk, "convergence": curve},
                                             indent=2))
    return path
