"""The ``slotlab`` command: games, play, rtp, simulate, tune, fit, par, rng dump, integrity,
certify, verify, compile, serve, audit, chain-heads export."""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from slotlab.counts import CountError, parse_count
from slotlab.games import AnyGame, UnknownGameError, find_game, game_ids
from slotlab.model import ModelError
from slotlab.rounds import Game, IllegalBetError, IllegalChoiceError

# Plain usage errors (one line, as the command's own errors), not rich panels.
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="slotlab: slot games, their exact math and simulation, and a game server.")
rng_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                      help="The random number generator.")
app.add_typer(rng_app, name="rng")
chain_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                        help="The hash chains of ledger entries and rounds: their heads.")
app.add_typer(chain_app, name="chain-heads")
console = Console()

ModelArg = Annotated[str, typer.Argument(help="A game id (see `slotlab games`) or a model file.")]
BetOpt = Annotated[int | None, typer.Option(
    "--bet", help="Total bet in credits, one of the game's bets (default: the smallest).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def _error(message: str) -> None:
    """``error: message`` in one line; the message is text, never markup (``'slotlab[ray]'``
    keeps its brackets)."""
    console.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)


def count(value: str | int) -> int:
    """A count option's value: 2000000000, 2_000_000_000, 2e9, 2G, 500M, 10k."""
    if isinstance(value, int):  # a default
        return value
    try:
        return parse_count(value)
    except CountError as exc:
        raise typer.BadParameter(str(exc)) from exc


def count_of_at_least(least: int) -> Callable[[str | int], int]:
    """A parser of counts of at least ``least``."""
    def parse(value: str | int) -> int:
        n = count(value)
        if n < least:
            raise typer.BadParameter(f"{n} is less than {least:,}")
        return n
    return parse


def _load(ref: str) -> AnyGame:
    """The game with id ``ref``, or the game of any family defined by the model file ``ref``."""
    try:
        return find_game(ref)
    except (UnknownGameError, ModelError) as exc:
        _error(str(exc))
        raise typer.Exit(2) from exc


def _bet(game: Game, bet: int | None) -> int:
    if bet is None:
        return game.bets()[0]
    if bet not in game.bets():
        _error(f"bet {bet} is not allowed; allowed total bets (credits): "
                      f"{game.bets()}")
        raise typer.Exit(2)
    return bet


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False) + "\n")


def _table(title: str, rows: list[dict[str, Any]], fold: bool = False) -> Table:
    """A table of ``rows``; ``fold`` wraps long cells (exact fractions) instead of cutting them."""
    table = Table(title=title, title_justify="left")
    if not rows:
        return table
    for key in rows[0]:
        table.add_column(key.replace("_", " "), justify="left" if key == "combination" else "right",
                         overflow="fold" if fold else "ellipsis")
    for row in rows:
        table.add_row(*(_fmt(v) for v in row.values()))
    return table


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if value is None:
        return "-"
    return str(value)


@app.command()
def games(json_out: JsonOpt = False) -> None:
    """List the games the platform knows."""
    rows: list[dict[str, Any]] = []
    for gid in game_ids():
        g = find_game(gid)
        d = g.describe()
        rows.append({"id": gid, "name": g.name, "grid": f"{d['reels']}x{d['rows']}",
                     "lines": len(d["lines"]), "bets": g.bets(), "rtp": g.theoretical_rtp(),
                     "max_win_x": g.max_win_x(), "model_hash": g.model_hash})
    if json_out:
        _print_json(rows)
        return
    # No borders and one space between columns: the table fits 80 columns, nothing cut.
    table = Table(title="slotlab games", title_justify="left", box=None, pad_edge=False,
                  padding=(0, 1), collapse_padding=True, header_style="bold")
    cells = [(r["id"], r["name"], r["grid"], str(r["lines"]), f"{r['rtp']:.4%}",
              f"{r['max_win_x']:,}x", r["model_hash"][:8]) for r in rows]
    for i, col in enumerate(("id", "name", "grid", "lines", "rtp", "max win", "model")):
        # id, RTP and max win never wrap or cut; a name wraps only on a narrower terminal
        table.add_column(col, no_wrap=col != "name",
                         min_width=max(len(c[i]) for c in cells) if col in (
                             "id", "rtp", "max win") else None)
    for c in cells:
        table.add_row(*c)
    console.print(table)


@app.command()
def play(
    model: ModelArg,
    seed: Annotated[str, typer.Option(help="Round seed: a decimal integer or 64 hex digits.")],
    bet: BetOpt = None,
    choice: Annotated[list[str] | None, typer.Option(
        help="A player choice (repeat for several, e.g. --choice red --choice collect). "
             "Choice k draws from the seed SHA-256(seed || k).")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Play one round and print its events. Same inputs, same output."""
    from slotlab.rng import derived_seed, parse_seed

    game = _load(model)
    total_bet = _bet(game, bet)
    choices = choice or []
    try:
        root = parse_seed(seed)
        seeds = [root] + [derived_seed(root, k) for k in range(1, len(choices) + 1)]
        result = game.play(total_bet, seeds, choices)
    except (ValueError, IllegalBetError, IllegalChoiceError) as exc:
        _error(str(exc))
        raise typer.Exit(2) from exc
    if json_out:
        _print_json(result.to_json())
        return
    console.print(f"[bold]{game.name}[/bold]  bet {total_bet}  model {game.model_hash[:12]}")
    for event in result.events:
        console.print(_describe_event(event))
    if result.awaiting is not None:
        console.print(f"[yellow]waiting for a choice:[/yellow] {result.awaiting.to_json()}")
    console.print(f"[bold]win {result.win}[/bold]"
                  + (f"  jackpots {', '.join(result.jackpots)}" if result.jackpots else ""))


def _describe_event(event: dict[str, Any]) -> str:
    kind = event["type"]
    if "window" in event:
        rows = len(event["window"][0])
        grid = "\n".join("  " + " ".join(f"{reel[r]:>7}" for reel in event["window"])
                         for r in range(rows))
        return f"{kind} {event.get('stage', event.get('step', ''))} stops {event['stops']}\n{grid}"
    details = ", ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"{kind}: {details}"


@app.command()
def rtp(
    model: ModelArg, bet: BetOpt = None, json_out: JsonOpt = False,
    bonuses: Annotated[int | None, typer.Option(
        help="Games whose feature is simulated, not exact (Superstars): Bonus Games to "
             "simulate (default 1,000,000; 1M, 1e6).", parser=count_of_at_least(1000),
        metavar="N")] = None,
    seed: Annotated[int, typer.Option(help="Seed of that simulation.", min=0)] = 0,
    fractions: Annotated[bool, typer.Option(
        "--fractions", help="Show the exact fractions too (hundreds of digits for some "
                            "games); --json always has them.")] = False,
    precision: Annotated[float | None, typer.Option(
        help="Games whose feature is simulated (Superstars): simulate until the RTP's 99% "
             "half-width is at most this (in RTP: 0.0001 is 0.01 percentage points), with "
             "variance reduction; instead of --bonuses.", min=1e-6, max=0.1)] = None,
    workers: Annotated[int, typer.Option(help="Worker processes for --precision.", min=1)] = 2,
) -> None:
    """Exact theoretical figures: RTP and its split (decimals; the exact fractions with
    --fractions or --json), hit frequency, PAR tables."""
    game = _load(model)
    if game.exact is None:
        _error(f"{game.id} has no exact calculator; use simulate")
        raise typer.Exit(2)
    if precision is not None:
        _rtp_to_precision(game, bet, precision, seed, workers, bonuses, json_out)
        return
    if bonuses is None:
        report = game.exact(_bet(game, bet))
    elif game.composed is None:
        _error(f"{game.id} takes no --bonuses: its RTP is exact")
        raise typer.Exit(2)
    else:
        report = game.composed(_bet(game, bet), bonuses=bonuses, seed=seed)
    rtp_value = report.get("rtp")
    if isinstance(rtp_value, int | float) and rtp_value > 1:  # a model paying out more than in
        Console(stderr=True).print(f"[yellow]warning:[/yellow] the RTP of {game.id} is "
                                   f"{rtp_value:.4%}, over 100%: the game returns more than it "
                                   "takes")
    if json_out:
        _print_json(report)
        return
    summary = Table(title=f"{game.name}: exact figures", title_justify="left", show_header=False)
    summary.add_column()
    summary.add_column(overflow="fold")  # exact fractions in full, however long
    for key, value in report.items():
        if not isinstance(value, dict | list) and (fractions or not _is_fraction(key, value)):
            summary.add_row(key.replace("_", " "), _fmt(value))
    console.print(summary)
    components = [{"component": k, **{f: x for f, x in v.items()
                                      if fractions or not _is_fraction(f, x)}}
                  for k, v in report.get("components", {}).items()]
    console.print(_table("RTP split", components, fold=True))
    for name, rows in report.get("tables", {}).items():
        console.print(_table(name, rows))
    for note in report.get("notes", []):
        console.print(f"[dim]note: {escape(note)}[/dim]")
    if not fractions:
        console.print("[dim]exact fractions: --fractions or --json[/dim]")


def _rtp_to_precision(game: AnyGame, bet: int | None, precision: float, seed: int, workers: int,
                      bonuses: int | None, json_out: bool) -> None:
    """``rtp --precision``: the composed RTP simulated until its 99 % half-width is reached."""
    precise = game.precise_rtp
    if precise is None:
        _error(f"{game.id} takes no --precision: its RTP is exact")
        raise typer.Exit(2)
    if bonuses is not None:
        _error("--precision and --bonuses exclude each other (--precision chooses the count)")
        raise typer.Exit(2)
    _bet(game, bet)  # a bet the game allows (the figures are x bet, the same at every bet)
    report: dict[str, Any] = precise(precision=precision, seed=seed, workers=workers)
    if json_out:
        _print_json(report)
        return
    low, high = report["ci99"]
    table = Table(title=f"{game.name}: RTP to a 99% half-width of {precision:.4%}",
                  title_justify="left", show_header=False)
    table.add_row("composed rtp (estimated)",
                  f"{report['rtp']:.5%}  (99% CI {low:.5%} .. {high:.5%})")
    table.add_row("99% half-width (estimated)", f"{report['ci99_half_width']:.5%}"
                  + ("" if report["precision_met"] else "  NOT reached: bonus budget spent"))
    table.add_row("base game rtp (exact)", f"{report['base_rtp']:.6%}  "
                                           f"({report['base_rtp_fraction']})")
    table.add_row("bonus game rtp (estimated)", f"{report['bonus_rtp']:.5%}")
    table.add_row("declared rtp (rtp_target)", f"{report['rtp_target']:.4%}  ("
                  + ("inside" if report["target_inside_ci99"] else "OUTSIDE")
                  + " the interval)")
    table.add_row("plain estimate, same bonuses (estimated)",
                  f"{report['plain_rtp']:.5%}  (99% half-width "
                  f"{report['plain_ci99_half_width']:.5%})")
    table.add_row("bonus games simulated", f"{report['bonuses_simulated']:,} "
                                           f"(+ {report['pilot_bonuses']:,} pilot)")
    table.add_row("seconds", f"{report['seconds']:.1f} on {report['workers']} worker(s)")
    table.add_row("seed", str(report["seed"]))
    console.print(table)
    rows = [{"class": name, "probability (exact)": c["probability"], "bonuses": c["bonuses"],
             "mean x bet (est.)": c["mean_x_bet"], "sd (est.)": c["sd_x_bet"],
             "plain sd (est.)": c["plain_sd_x_bet"], "variance / plain": (
                 1 / c["variance_reduction"] if c["variance_reduction"] else None)}
            for name, c in report["trigger_classes"].items()]
    console.print(_table("trigger classes", rows))
    for note in report["notes"]:
        console.print(f"[dim]note: {escape(note)}[/dim]")


def _is_fraction(key: str, value: Any) -> bool:
    """An exact fraction's text (``rtp_fraction``, a split's ``fraction``): the decimal beside
    it says the same in a few digits."""
    return isinstance(value, str) and "fraction" in key


@app.command()
def simulate(
    model: ModelArg,
    spins: Annotated[int, typer.Option(parser=count, metavar="N",
                                       help="Rounds to simulate: 2000000000, 2_000_000_000, "
                                            "2e9, 2G, 500M, 10k.")],
    seed: Annotated[int, typer.Option(help="Root seed; chunk i draws from SeedSequence(seed, "
                                           "spawn_key=(i,)).", min=0)] = 0,
    workers: Annotated[int, typer.Option(help="Local worker processes.", min=1)] = 1,
    ray: Annotated[str | None, typer.Option(
        help="Run on a Ray cluster: host:port of its head, ray://host:10001 (needs "
             "ray[client]), 'auto' (the cluster this machine joined) or 'local' (start one "
             "here).")] = None,
    checkpoint: Annotated[Path | None, typer.Option(
        help="Keep finished chunks in this file as they complete; the same command resumes "
             "from it after Ctrl-C, kill -9 or a lost machine.")] = None,
    chunk_spins: Annotated[int, typer.Option(parser=count, metavar="N",
                                             help="Rounds per chunk (part of the job: a "
                                                  "checkpoint resumes the same size).")] = 1 << 20,
    bet: BetOpt = None,
    record: Annotated[bool, typer.Option(
        help="Write the run as the game's simulation-record.json (the figures its rule text "
             "publishes, stamped with the model's hash), shown in game.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Monte Carlo simulation: RTP with its 99% interval, hit rate, volatility, max win."""
    from slotlab.simulate.checkpoint import CheckpointError, chunks_kept
    from slotlab.simulate.progress import SimulationProgress
    from slotlab.simulate.runner import ChunkLostError, RayConnectError, RunProgress
    from slotlab.simulate.runner import simulate as run

    game = _load(model)
    total_bet = _bet(game, bet)
    if record and model != game.id:  # a record ships with a game: it is made on its own model
        _error("--record needs a game id: a record is made on the game's shipped model")
        raise typer.Exit(2)
    last: list[RunProgress] = []

    def on_progress(state: RunProgress) -> None:
        last[:] = [state]
        bar.update(state)

    try:
        with SimulationProgress(f"simulating {game.id}", Console(stderr=True),
                                disable=json_out) as bar:
            result = run(game, model, total_bet, spins, seed=seed, workers=workers,
                         ray_address=ray, chunk_spins=chunk_spins, checkpoint=checkpoint,
                         on_progress=on_progress)
    except (RayConnectError, CheckpointError, ValueError) as exc:
        _error(str(exc))
        raise typer.Exit(2) from exc
    except ChunkLostError as exc:
        _error(str(exc))
        raise typer.Exit(1) from exc
    except KeyboardInterrupt:
        # Counted in the file once the workers are gone: a chunk that finished during the stop
        # is kept too, and resumed.
        total = last[0].chunks_total if last else None
        n = chunks_kept(Path(checkpoint)) if checkpoint else (last[0].chunks_done if last else 0)
        done = f"{n} of {total} chunks" if total is not None else f"{n} chunks"
        kept = (f"{done} are in {checkpoint}: the same command resumes" if checkpoint else
                "nothing was kept (--checkpoint FILE keeps finished chunks)")
        Console(stderr=True, soft_wrap=True).print(f"interrupted: {kept}")  # a path copied whole
        raise typer.Exit(130) from None
    # What is left is the report: freezing the heap spares the collections at exit a walk over
    # numba's objects (about 0.2 s of CPU).
    gc.freeze()
    data = result.to_json()
    # beside the simulation: the exact RTP, or a composed game's (part simulated: estimated)
    reference = "composed_rtp" if game.composed is not None else "exact_rtp"
    if game.exact is not None:
        data[reference] = game.exact(total_bet)["rtp"]
    if record:
        from slotlab.simulate import record as records

        command = (f"slotlab simulate {model} --spins {spins} --seed {seed} "
                   f"--workers {workers} --record")
        written = records.write(records.from_run(data, command), records.record_path(game))
        Console(stderr=True, soft_wrap=True).print(f"recorded in {written}")
    if json_out:
        _print_json(data)
        return
    table = Table(title=f"{game.name}: {spins:,} simulated rounds", title_justify="left",
                  show_header=False)
    low, high = data["ci99"]
    table.add_row("rtp", f"{data['rtp']:.6%}  (99% CI {low:.4%} .. {high:.4%})")
    if reference in data:
        inside = low <= data[reference] <= high
        label = "composed rtp (estimated)" if game.composed is not None else "exact rtp"
        table.add_row(label, f"{data[reference]:.6%}  ({'inside' if inside else 'OUTSIDE'}"
                             " the interval)")
    for key in ("hit_rate", "sd", "volatility_index_90", "max_win", "max_win_x", "max_win_count",
                "feature_rate", "feature_one_in", "spins", "seed", "chunks", "chunk_spins",
                "resumed_chunks", "chunks_rerun", "seconds", "spins_per_second", "backend",
                "workers", "model_hash", "code_version"):
        table.add_row(key.replace("_", " "), _fmt(data[key]))
    table.add_row("largest wins (x bet)", ", ".join(f"{x:,.1f}" for x in data["top_wins_x"]))
    level = data["one_in_spins_level"]
    if level is not None:  # the tail's order statistics (simulate/stats.tail_level)
        table.add_row(f"1-in-{data['spins']:,} win level",
                      f"at least {level['at_least_x']:,.1f}x ({level['confidence']:.1%} "
                      f"confidence, the run's #{level['order']} largest win)")
    console.print(table)
    console.print(_table("RTP split", [{"component": k, "rtp": v}
                                       for k, v in data["rtp_components"].items()]))
    console.print(_table("win distribution", [{"band": k, "rounds": v}
                                              for k, v in data["win_bands"].items()]))


@app.command()
def tune(
    model: ModelArg,
    param: Annotated[str, typer.Option(help="Path of one number in the model file: pays.CHERRY.3, "
                                            "strips.base.0.CHERRY (that symbol's stops on the "
                                            "strip), bonus.land.prize.")],
    target: Annotated[float, typer.Option(help="Target RTP: 0.9406 or 94.06.")],
    lo: Annotated[str | None, typer.Option(help="Lowest value to try (default: searched; "
                                                "simulated games: half).")] = None,
    hi: Annotated[str | None, typer.Option(help="Highest value to try (default: searched; "
                                                "simulated games: twice).")] = None,
    bet: BetOpt = None,
    bonuses: Annotated[int, typer.Option(help="Simulated games (Superstars): Bonus Games per "
                                              "evaluation.", min=1000)] = 2_000_000,
    tolerance: Annotated[float, typer.Option(help="Simulated games: stop within this of the "
                                                  "target RTP.")] = 0.0001,
    seed: Annotated[int, typer.Option(help="Simulated games: seed of every evaluation.",
                                      min=0)] = 0,
    out: Annotated[Path | None, typer.Option(help="Write the tuned model file here.")] = None,
    model_id: Annotated[str | None, typer.Option("--id", help="Id of the written model.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Change one parameter of a model to hit a target RTP: exactly where the game's RTP is
    exact (a fraction solve or bisection), on common random numbers where it is simulated."""
    from fractions import Fraction

    from slotlab.tune import (
        TuneError,
        UnreachableTarget,
        exact_evaluator,
        tune_exact,
        tune_simulated,
    )

    game = _load(model)
    family, raw = game.model_source()
    goal = target / 100 if target > 1.5 else target
    total_bet = None if bet is None else _bet(game, bet)
    # a game whose RTP is partly simulated (Superstars) is not tuned exactly
    is_exact = (game.exact is not None and game.composed is None
                and isinstance(game.exact(total_bet or game.bets()[0]).get("rtp_fraction"), str))
    show = None if json_out else (lambda s: console.print(
        f"  {param} = {s['value']}: rtp " + ("invalid model" if s["rtp"] is None
                                             else f"{s['rtp']:.6%}")))
    try:
        bounds = [None if v is None else Fraction(v) for v in (lo, hi)]
    except (ValueError, ZeroDivisionError) as exc:
        _error(f"--lo/--hi must be numbers: {exc}")
        raise typer.Exit(2) from exc
    try:
        if is_exact:
            result = tune_exact(raw, param, Fraction(str(goal)), exact_evaluator(family, total_bet),
                                lo=bounds[0], hi=bounds[1], on_step=show)
        elif game.tuner is not None:
            result = tune_simulated(game, raw, param, goal, bonuses, seed, bounds[0], bounds[1],
                                    tolerance, on_step=show)
        else:
            _error(f"{game.id} has neither an exact RTP nor a tuner")
            raise typer.Exit(2)
    except UnreachableTarget as exc:
        console.print(f"[red]cannot reach the target:[/red] {exc}; no model written")
        raise typer.Exit(1) from exc
    except TuneError as exc:
        _error(str(exc))
        raise typer.Exit(2) from exc
    tuned = result.pop("model")
    if "rtp_target" in tuned:  # a model that declares its target RTP gets the new target
        tuned["rtp_target"] = f"{goal * 100:.2f}%"
    if model_id:
        tuned["id"] = model_id
    if out is not None:
        out.write_text(json.dumps(tuned, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    result["out"] = None if out is None else str(out)
    if json_out:
        _print_json(result)
        return
    reached = f"rtp {result['rtp']:.6%}"
    if result.get("ci99"):
        reached += f" (99% interval {result['ci99'][0]:.4%} .. {result['ci99'][1]:.4%})"
    elif result.get("hit"):
        reached += " (exactly the target)"
    console.print(f"{param} = {result['value']} (was {result['previous']}): {reached}, target "
                  f"{goal:.4%}, {len(result['evaluations'])} evaluations"
                  + (f"; model written to {out}" if out else ""))
    if result.get("note"):
        console.print(f"[dim]{result['note']}[/dim]")


@app.command()
def fit(
    model: ModelArg,
    target: Annotated[list[str], typer.Option(
        help="A target, FIGURE=VALUE+-TOLERANCE (repeat): rtp=96%+-0.05%, hit_rate=0.3+-0.01, "
             "feature_rate=1/150+-1/3000, sd=8+-1, volatility=13+-2, p_win_ge_100=1/4000+-1/"
             "20000 (a win of 100x the bet or more), top_prize=1.11%+-0.03% (Superstars: the "
             "Final board's 1000x square won per Bonus Game, on --bonuses Bonus Games).")],
    param: Annotated[list[str], typer.Option(
        help="An integer of the model to fit, PATH=LOW..HIGH (repeat): pays.CHERRY.3=2..40, "
             "strips.base.0.SEVEN=1..6 (that symbol's stops on the strip), "
             "bonus.land.prize=10000..11000 (a p/q probability: its numerator over the "
             "denominator it is written with).")],
    out: Annotated[Path, typer.Option(help="Write the fitted model file here.")],
    report: Annotated[Path | None, typer.Option(help="Also write the report as JSON here.")] = (
        None),
    bet: BetOpt = None,
    rounds: Annotated[int, typer.Option(parser=count_of_at_least(1000), metavar="N",
                                        help="Simulated rounds per model, for the figures the "
                                             "game has no exact value of.")] = 1_000_000,
    bonuses: Annotated[int, typer.Option(help="Games whose RTP is composed (Superstars): "
                                              "simulated Bonus Games per model, for the RTP "
                                              "and for the top prize.",
                                         min=1000)] = 100_000,
    seed: Annotated[int, typer.Option(help="Seed of the search and of every simulation.",
                                      min=0)] = 0,
    generations: Annotated[int, typer.Option(help="Most generations of the search.",
                                             min=1)] = 30,
    population: Annotated[int, typer.Option(help="Population per parameter.", min=2)] = 8,
    model_id: Annotated[str | None, typer.Option("--id", help="Id of the written model.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Fit a model to many targets at once: the named integers (pays, weights, strip counts)
    are searched by differential evolution (scipy); each figure is exact where the game has
    exact math (checked in exact fractions at the end) and simulated with a 99% interval
    where not. Writes the best model and reports every target met or not, and why; exits 1
    when a target is not met."""
    from slotlab.fit import Bound, FitError, Target
    from slotlab.fit import fit as run_fit

    game = _load(model)
    family, raw = game.model_source()
    total_bet = None if bet is None else _bet(game, bet)
    show = None if json_out else (lambda s: console.print(
        "  " + ", ".join(f"{p}={v}" for p, v in s["params"].items()) + ": " + (
            "not a valid model" if s["values"] is None else
            ", ".join(f"{f} {v:.6g}" for f, v in s["values"].items())), style="dim"))
    for path in (out, report):
        if path is not None and not path.parent.is_dir():
            _error(f"no folder {path.parent} to write {path.name} in")
            raise typer.Exit(2)
    try:
        targets = [Target.parse(t) for t in target]
        bounds = [Bound.parse(raw, p) for p in param]
        result = run_fit(family, raw, total_bet, targets, bounds, rounds=rounds, seed=seed,
                         maxiter=generations, popsize=population, bonuses=bonuses,
                         on_step=show)
    except FitError as exc:
        _error(str(exc))
        raise typer.Exit(2) from exc
    fitted = result.model
    if model_id:
        fitted["id"] = model_id
    out.write_text(json.dumps(fitted, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    data = {**result.to_json(), "out": str(out)}
    if report is not None:
        report.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    if json_out:
        _print_json(data)
    else:
        rows = [{"target": str(v.target), "value": f"{float(v.measure.value):.8g}",
                 "how": v.measure.how,
                 "met": {True: "met", False: "NOT MET", None: "undecided"}[v.met],
                 "why": v.why} for v in result.verdicts]
        console.print(_table("targets", rows, fold=True))
        console.print("parameters: " + ", ".join(
            f"{p} = {v} (was {result.previous[p]})" for p, v in result.values.items()))
        console.print(f"{result.evaluations} models tried ({result.invalid} not valid); "
                      f"{result.stopped}; model written to {out}")
    if not result.all_met:
        raise typer.Exit(1)


@app.command()
def par(
    model: ModelArg,
    out: Annotated[Path, typer.Option(help="Folder for par.html, par.xlsx and par.json.")],
    spins: Annotated[int, typer.Option(parser=count, metavar="N",
                                       help="Rounds to simulate beside the exact figures "
                                            "(10M, 2e9, ...).")] = 10_000_000,
    seed: Annotated[int, typer.Option(help="Root seed of the simulation.", min=0)] = 0,
    workers: Annotated[int, typer.Option(help="Local worker processes.", min=1)] = 1,
    bet: BetOpt = None,
    sample: Annotated[int, typer.Option(parser=count, metavar="N",
                                        help="Rounds of the run played one by one for the "
                                             "per-feature figures.")] = 500_000,
    bonuses: Annotated[int, typer.Option(help="Games whose feature is simulated (Superstars): "
                                              "Bonus Games per exact report.", min=1000)] = (
        200_000),
    sessions: Annotated[int, typer.Option(parser=count, metavar="N",
                                          help="Player sessions of 1,000 rounds simulated for "
                                               "the session table (shorter sessions are their "
                                               "starts).")] = 10_000,
) -> None:
    """Write a PAR sheet: par.html (self-contained, plots embedded), par.xlsx and par.json."""
    from slotlab.simulate.par import write_par

    game = _load(model)
    paths = write_par(game, model, out, _bet(game, bet), spins, seed=seed, workers=workers,
                      sample_rounds=sample, bonuses=bonuses, sessions=sessions)
    for kind, path in paths.items():
        console.print(f"{kind}: {path}")


@rng_app.command("dump")
def rng_dump(
    n_bytes: Annotated[int, typer.Option("--bytes", help="How many bytes to write (100M, 1e8).",
                                         parser=count, metavar="N")],
    seed: Annotated[str, typer.Option(help="Seed (decimal or 64 hex digits).")] = "0",
    kind: Annotated[str, typer.Option(help="chacha20 (live play) or xoshiro (simulation).")] = (
        "chacha20"),
    out: Annotated[Path | None, typer.Option(help="Output file (default: stdout).")] = None,
) -> None:
    """Write raw generator output for external test batteries (dieharder, PractRand...)."""
    import numpy as np

    from slotlab.rng import CHACHA20, XOSHIRO, fill_u64, parse_seed, stream_from_seed

    kinds = {"chacha20": CHACHA20, "xoshiro": XOSHIRO}
    if kind not in kinds:
        _error(f"kind must be one of {sorted(kinds)}")
        raise typer.Exit(2)
    stream = stream_from_seed(parse_seed(seed), kinds[kind])
    sink = out.open("wb") if out else sys.stdout.buffer
    remaining = n_bytes
    block = np.empty(1 << 16, dtype=np.uint64)
    try:
        while remaining > 0:
            fill_u64(stream, block)
            data = block.astype("<u8").tobytes()[:remaining]
            sink.write(data)
            remaining -= len(data)
    finally:
        if out:
            sink.close()
        else:
            sink.flush()


@app.command()
def integrity(
    game: Annotated[list[str] | None, typer.Argument(
        help="Games or model files to list (default: every game the platform knows).")] = None,
) -> None:
    """Print this install's certified list (code digest and model hashes) as JSON: the file a
    test lab certifies and the server checks (SLOTLAB_CERTIFIED_LIST)."""
    from slotlab.integrity import certified_list

    _print_json(certified_list(_load(g) for g in (game or game_ids())))


@app.command()
def certify(
    game: Annotated[str | None, typer.Argument(
        help="A game id or model file (not with --check).")] = None,
    out: Annotated[Path | None, typer.Option(help="Folder for bundle.html and bundle.json.")] = (
        None),
    check: Annotated[Path | None, typer.Option(
        help="Recompute a bundle's digests against the installed code and model instead.")] = (
        None),
    spins: Annotated[int, typer.Option(parser=count, metavar="N",
                                       help="Rounds to simulate (1e8, 2e9, ...).")] = (
        100_000_000),
    workers: Annotated[int, typer.Option(help="Local worker processes.", min=1)] = 1,
    bonuses: Annotated[int, typer.Option(help="Games whose feature is simulated (Superstars): "
                                              "Bonus Games per exact report.", min=1000)] = (
        200_000),
    tests: Annotated[str | None, typer.Option(
        "--tests", metavar="MARKER",
        help="Run only the rule map's tests that match this pytest marker expression "
             "(e.g. 'not slow'), or none; the others are reported as not run.")] = None,
    stop_rounds: Annotated[int, typer.Option(parser=count, metavar="N",
                                             help="Live rounds whose reel stops are "
                                                  "chi-square tested.")] = 20_000,
    draws: Annotated[int, typer.Option(parser=count, metavar="N",
                                       help="Draws per strip or table tested through the "
                                            "scaling functions.")] = 100_000,
    server: Annotated[bool, typer.Option(help="Run the server's part (a short real run on a "
                                              "temporary SQLite file).")] = True,
    battery: Annotated[bool, typer.Option(help="Run dieharder's tests on the generator's raw "
                                               "output, where dieharder is installed (256 MiB "
                                               "per test).")] = True,
) -> None:
    """Write a test lab's evidence bundle for a game (HTML and JSON), or --check one."""
    from slotlab import certify as bundle

    if check is not None:
        try:
            recorded, rows = bundle.check(check)
        except bundle.BundleError as exc:
            console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
        bad = [r for r in rows if r["status"] != "same"]
        for r in rows:
            mark = "[green]same[/green]" if r["status"] == "same" else f"[red]{r['status']}[/red]"
            console.print(f"{mark}  {r['kind']:<14} {r['path']}", soft_wrap=True)
        console.print(f"{recorded['game']}: {len(rows) - len(bad)} of {len(rows)} as certified"
                      + (f"; [red]{len(bad)} differ: what runs is not what was certified"
                         "[/red]" if bad else ": what runs is what was certified"))
        raise typer.Exit(1 if bad else 0)
    if game is None or out is None:
        console.print("[red]error:[/red] give a GAME and --out DIR (or --check DIR)")
        raise typer.Exit(2)
    g = _load(game)
    paths = bundle.make(g, game, out, spins, workers=workers, bonuses=bonuses,
                        test_marker=tests, stop_rounds=stop_rounds, draws=draws, server=server,
                        battery=battery,
                        log=lambda msg: Console(stderr=True).print(f"[dim]{msg}[/dim]"))
    for kind, path in paths.items():
        console.print(f"{kind}: {path}")


@app.command()
def verify(
    round_file: Annotated[Path, typer.Argument(
        metavar="ROUND.json", help="A round exported from RECALL (GET /api/fairness/rounds/ID), "
                                   "its seed pair revealed.")],
) -> None:
    """Verify a provably fair round alone: the revealed server seed against its commitment,
    every seed, every event and the win, replayed from the public model; no server needed."""
    from slotlab.verify import VerifyError, load
    from slotlab.verify import verify as check_round

    try:
        data = load(round_file)
    except VerifyError as exc:
        console.print(f"[red]error:[/red] {exc}", soft_wrap=True)
        raise typer.Exit(2) from exc
    try:
        for line in check_round(data):
            console.print(f"[green]ok[/green]  {line}", soft_wrap=True)
    except VerifyError as exc:
        console.print(f"[red]FAILED[/red]  {exc}", soft_wrap=True)
        raise typer.Exit(1) from exc
    console.print(f"round {data['round'].get('round_id')} verified", soft_wrap=True)


@app.command("compile")
def compile_kernels(
    game: Annotated[list[str] | None, typer.Argument(
        help="Games or model files (default: every game the platform knows).")] = None,
    jobs: Annotated[int | None, typer.Option(
        min=1, help="Processes at once (default: one per core).")] = None,
) -> None:
    """Compile the games' kernels into numba's on-disk cache, in parallel (a process per game
    family and part: round, simulation, exact RTP), so that a server start, a simulation or a
    test run loads them instead of each compiling them."""
    from slotlab.kernel_cache import compile_games

    refs = game or game_ids()
    for ref in refs:
        _load(ref)  # an unknown game is a usage error before anything starts
    for family, part, seconds in compile_games(refs, jobs):
        console.print(f"{', '.join(family)} ({part}): {seconds:.1f} s")


DbOpt = Annotated[str | None, typer.Option(
    "--db", help="Database URL (default: SLOTLAB_DATABASE_URL, else var/slotlab.db).")]
KeyFileOpt = Annotated[Path, typer.Option(
    "--key-file", help="The secret the heads are signed with (HMAC-SHA256), kept away from the "
                       "database: a file of at least 32 bytes.")]


def _database(url: str | None) -> Any:
    import os

    from slotlab.store import Database

    return Database(url or os.environ.get("SLOTLAB_DATABASE_URL", "sqlite:///var/slotlab.db"))


def _key(path: Path) -> bytes:
    try:
        key = path.read_bytes().strip()
    except OSError as exc:
        _error(f"cannot read the key file: {exc}")
        raise typer.Exit(2) from exc
    if len(key) < 32:
        _error("the key file holds fewer than 32 bytes")
        raise typer.Exit(2)
    return key


@chain_app.command("export")
def chain_heads_export(
    key_file: KeyFileOpt,
    out: Annotated[Path, typer.Option("--out", help="Where to write the signed heads (JSON).")],
    db: DbOpt = None,
) -> None:
    """Write every chain's head (place and digest), signed: kept elsewhere, it shows later any
    rewrite of the chains up to it, however consistent (`slotlab audit --heads`)."""
    from slotlab.ledger.chain_audit import export_heads

    key = _key(key_file)
    database = _database(db)
    try:
        with database.read() as s:
            heads = export_heads(s, key)
    finally:
        database.dispose()
    out.write_text(json.dumps(heads, indent=1, sort_keys=True) + "\n")
    console.print(f"{len(heads['chains'])} chain heads written to {out}")


@app.command()
def audit(
    db: DbOpt = None,
    heads: Annotated[Path | None, typer.Option(
        "--heads", help="Heads exported earlier (`slotlab chain-heads export`): each must still "
                        "be in its chain.")] = None,
    key_file: Annotated[Path | None, typer.Option(
        "--key-file", help="The key the heads were signed with (with --heads).")] = None,
) -> None:
    """Check the database's money and records: every balance equals its ledger, none negative,
    the jackpot pools add up, every autoplay run's figures are its rounds', and every hash
    chain holds (its first broken row is named). Prints JSON; exits 1 when anything is wrong."""
    from slotlab import ledger
    from slotlab.ledger.chain_audit import HeadsFileError, read_heads, walk
    from slotlab.server.services import autoplay_runs

    exported = None
    if heads is not None:
        if key_file is None:
            _error("--heads needs --key-file to check the heads' signature")
            raise typer.Exit(2)
        try:
            exported = read_heads(json.loads(heads.read_text()), _key(key_file))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            reason = exc if isinstance(exc, HeadsFileError) else f"unreadable: {exc}"
            _error(f"heads file {heads}: {reason}")
            raise typer.Exit(2) from exc
    database = _database(db)
    try:
        with database.read() as s:
            money = ledger.audit(s)
            runs = autoplay_runs.audit(s)
            chains = walk(s, exported)
    finally:
        database.dispose()
    report = {**money, "bad_autoplay_runs": runs, **chains,
              "ok": bool(money["ok"]) and not runs and bool(chains["ok"])}
    _print_json(report)
    if not report["ok"]:
        raise typer.Exit(1)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[str | None, typer.Option(
        help="Database URL (default: SQLite file var/slotlab.db; postgresql+psycopg://... for "
             "PostgreSQL).")] = None,
    workers: Annotated[int, typer.Option(
        min=1, help="Server processes on the one port (more than 1 needs PostgreSQL; "
                    "docs/scale.md).")] = 1,
) -> None:
    """Start the game server with the browser client (SQLite by default)."""
    from slotlab.server.main import ServeError, WorkersError, run

    try:
        run(host=host, port=port, db_url=db, workers=workers)
    except ServeError as exc:  # a busy port, a database that cannot be used: one line
        _error(str(exc))
        raise typer.Exit(2 if isinstance(exc, WorkersError) else 1) from None


if __name__ == "__main__":
    app()
