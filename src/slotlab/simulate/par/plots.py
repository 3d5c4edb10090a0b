"""The PAR sheet's plots, drawn with matplotlib into PNG bytes (embedded in the HTML)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np


def _table(figures: dict[str, Any], table_id: str) -> dict[str, Any]:
    return next(t for t in figures["tables"] if t["id"] == table_id)


def _png(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


def plots(figures: dict[str, Any]) -> dict[str, tuple[str, bytes]]:
    """``plot id -> (caption, PNG)`` for the plots of a PAR sheet."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stamp = f"model {figures['model_hash'][:12]}, seed {figures['seed']}"
    out: dict[str, tuple[str, bytes]] = {}

    conv = np.array(_table(figures, "convergence")["rows"], dtype=float)
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.fill_between(conv[:, 0], conv[:, 2], conv[:, 3], alpha=0.25, label="99% interval")
    ax.plot(conv[:, 0], conv[:, 1], marker="o", ms=3, label="simulated RTP")
    if figures["plots"]["exact_rtp"] is not None:
        estimated = figures["plots"].get("rtp_estimated", False)
        ax.axhline(figures["plots"]["exact_rtp"], color="black", lw=1,
                   label="composed RTP (estimated)" if estimated else "exact RTP")
    ax.set_xscale("log")
    ax.set_xlabel("rounds")
    ax.set_ylabel("RTP")
    ax.set_title(f"RTP convergence ({stamp})")
    ax.legend()
    out["plot-convergence"] = ("Simulated RTP with its running 99% interval", _png(fig))

    bands = _table(figures, "win-bands")["rows"]
    fig, ax = plt.subplots(figsize=(8, 4))
    x = np.arange(len(bands))
    ax.bar(x, [max(r[3], 1e-300) if r[2] else 0 for r in bands], color="#3b6ea8",
           label="simulated")
    exact = [(i, r[7]) for i, r in enumerate(bands) if isinstance(r[7], float) and r[7] > 0]
    if exact:
        ax.plot([i for i, _ in exact], [p for _, p in exact], "k_", ms=18, mew=2, label="exact")
    ax.set_xticks(x, [r[0] for r in bands], rotation=40, ha="right")
    ax.set_yscale("log")
    ax.set_xlabel("win / total bet")
    ax.set_ylabel("share of rounds (log scale)")
    ax.set_title(f"Win distribution ({stamp})")
    ax.legend()
    out["plot-win-distribution"] = ("Share of rounds by win band, log scale", _png(fig))

    split = [r for r in _table(figures, "rtp-split")["rows"] if (r[3] or 0) > 0]
    fig, ax = plt.subplots(figsize=(8, 4))
    y = np.arange(len(split))
    ax.barh(y - 0.2, [r[7] for r in split], height=0.4, label="simulated")
    ax.barh(y + 0.2, [r[6] or 0 for r in split], height=0.4, label="exact")
    ax.set_yticks(y, [r[0] for r in split])
    ax.invert_yaxis()
    ax.set_xlabel("share of the RTP")
    ax.set_title(f"Share of RTP by feature ({stamp})")
    ax.legend()
    out["plot-rtp-share"] = ("Each part's share of the RTP", _png(fig))

    edges = np.array(figures["plots"]["feature_win_edges"])
    fig, ax = plt.subplots(figsize=(8, 4))
    used = np.zeros(len(edges) - 1, dtype=bool)
    for name, counts in figures["plots"]["feature_wins"].items():
        if sum(counts):
            ax.stairs(counts, edges, label=name)
            used |= np.array(counts) > 0
    ax.set_xscale("log")
    if used.any():  # the range the wins cover, not the whole bin range
        where = np.flatnonzero(used)
        ax.set_xlim(edges[where[0]] / 1.5, edges[where[-1] + 1] * 1.5)
    ax.set_yscale("symlog", linthresh=1)
    ax.set_xlabel("feature win (x total bet, log scale)")
    ax.set_ylabel("rounds")
    ax.set_title(f"Distribution of feature wins ({stamp})")
    if figures["plots"]["feature_wins"]:
        ax.legend(fontsize="small", ncol=2)
    out["plot-feature-wins"] = ("Wins of each feature in the rounds it pays", _png(fig))

    sessions = figures["plots"]["sessions"]
    fig, ax = plt.subplots(figsize=(8, 4))
    for bankroll, curve in sessions["broke"].items():
        ax.plot(sessions["rounds"], curve, label=f"bankroll {bankroll} bets")
    ax.set_xlim(0, sessions["longest"])
    ax.set_xlabel("rounds played")
    ax.set_ylabel("share of sessions broke")
    ax.set_title(f"Chance of going broke by round ({stamp})")
    ax.legend()
    out["plot-session-broke"] = ("The chance a session is broke after each round, by bankroll",
                                 _png(fig))

    fig, ax = plt.subplots(figsize=(8, 4))
    for bankroll, values in sessions["results"].items():
        ax.plot(values, sessions["result_quantiles"], label=f"bankroll {bankroll} bets")
    ax.axvline(0, color="black", lw=1)
    ax.set_xscale("symlog", linthresh=10)
    ax.set_xlabel(f"net result after {sessions['longest']:,} rounds (bets, symlog scale)")
    ax.set_ylabel("percentile of sessions")
    ax.set_title(f"Session results ({stamp})")
    ax.legend()
    out["plot-session-results"] = (f"Distribution of the net result of {sessions['longest']:,}"
                                   "-round sessions, by bankroll", _png(fig))
    return out
