"""The bench's printed table: the same figures as the JSON, with the targets they answer to."""

import sys
import time

from . import crowd, probe

LATENCY_TARGETS = {
    ("embedded", 20): {"p50_ms": 5.0, "p99_ms": 15.0},
    ("embedded", 100): {"p99_ms": 50.0},
    ("production", 100): {"p99_ms": 50.0},
}
THROUGHPUT_TARGET = 300.0
_START = time.monotonic()


def progress(label: str, figures: dict[str, object]) -> None:
    shown = " ".join(f"{k}={v}" for k, v in figures.items() if not isinstance(v, list | dict))
    print(f"[{time.monotonic() - _START:6.1f} s] {label} {shown}", file=sys.stderr, flush=True)


def verdict(shape: str, clients: int, run: dict[str, object]) -> str:
    targets = LATENCY_TARGETS.get((shape.split()[0].split("-")[0], clients))
    if not targets:
        return ""
    met = all(run.get(key, 1e9) <= limit for key, limit in targets.items())
    wanted = ", ".join(f"{key.split('_')[0]} ≤ {limit:g}" for key, limit in targets.items())
    return f"{wanted}: {'met' if met else 'MISSED'}"


def latency_table(results: dict[str, object]) -> list[str]:
    lines = [
        "Latency: a move sent -> its fragment (matching version) on EVERY screen in the room",
        f"{'shape':<20} {'clients':>7} {'moves':>6} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'max ms':>7} {'lost':>4} {'srv ms/mv':>9} {'srv%':>5} {'cli%':>5} {'db%':>4} "
        f"{'other%':>6}  target",
    ]
    sections = [
        ({"production_core": "production-core"}.get(key, key), results.get(key))
        for key in ("embedded", "production", "production_core")
    ]
    for shape, section in sections:
        if not isinstance(section, dict) or "latency" not in section:
            continue
        for run in section["latency"]:
            lines.append(
                f"{shape:<20} {run['clients']:>7} {run.get('moves', 0):>6} "
                f"{run.get('p50_ms', 0):>7.1f} {run.get('p95_ms', 0):>7.1f} "
                f"{run.get('p99_ms', 0):>7.1f} {run.get('max_ms', 0):>7.1f} {run['lost']:>4} "
                f"{run['server_cpu_ms_per_move']:>9.2f} {run['server_cpu_pct']:>5.0f} "
                f"{run['client_cpu_pct']:>5.0f} {run['db_cpu_pct']:>4.0f} "
                f"{run['other_cpu_pct']:>6.0f}  {verdict(shape, run['clients'], run)}"
            )
    lines.append(
        "  one player moving at 20 moves/s on an expert board; srv ms/mv = Daphne CPU per move;"
        " CPU% of one core: srv = Daphnes, cli = load generator, db = PostgreSQL + Redis,"
        " other = the rest of the machine"
    )
    return lines


def race_table(results: dict[str, object]) -> list[str]:
    """Issue 15's race: 8 racers + 20 spectators, a move -> every screen, by audience."""
    runs = [
        (shape, section["race"])
        for shape, section in (
            ("embedded", results.get("embedded")),
            ("production", results.get("production")),
        )
        if isinstance(section, dict) and "race" in section
    ]
    if not runs:
        return []
    lines = [
        "",
        "Race: 8 racers taking turns at 20 moves/s on their own expert boards, 20 spectators;"
        " a move -> its text on every screen",
        f"{'shape':<20} {'screens':<11} {'moves':>6} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'max ms':>7} {'lost':>4} {'srv ms/mv':>9}",
    ]
    for shape, run in runs:
        for audience in ("all", "racers", "spectators"):
            f = run[audience]
            lines.append(
                f"{shape:<20} {audience:<11} {f.get('moves', 0):>6} {f.get('p50_ms', 0):>7.1f} "
                f"{f.get('p95_ms', 0):>7.1f} {f.get('p99_ms', 0):>7.1f} {f.get('max_ms', 0):>7.1f} "
                f"{f['lost']:>4} {run['server_cpu_ms_per_move']:>9.2f}"
            )
    lines.append(
        "  spectators watch live here (delay 0); a room's delay (3 s by default) adds itself"
    )
    return lines


def throughput_table(results: dict[str, object]) -> list[str]:
    lines = []
    for key in ("production", "production_core"):
        section = results.get(key)
        if not isinstance(section, dict) or "throughput" not in section:
            continue
        run = section["throughput"]
        lines += [
            "",
            f"Throughput ({section['shape']}): {run['rooms']} rooms x {run['players']} players, "
            f"random valid moves, offered load stepped up until p99 > {run['limit_ms']:g} ms",
            f"{'offered/s':>9} {'done/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
            f"{'max ms':>8} {'lost':>5} {'srv ms/mv':>9} {'srv%':>5} {'cli%':>5} {'db%':>4} "
            f"{'other%':>6} {'all%':>5}",
        ]
        for step in run["steps"]:
            lines.append(
                f"{step['offered']:>9.0f} {step['achieved']:>7.0f} {step.get('p50_ms', 0):>7.1f} "
                f"{step.get('p95_ms', 0):>7.1f} {step.get('p99_ms', 0):>7.1f} "
                f"{step.get('max_ms', 0):>8.1f} {step['lost']:>5} "
                f"{step['server_cpu_ms_per_move']:>9.2f} {step['server_cpu_pct']:>5.0f} "
                f"{step['client_cpu_pct']:>5.0f} {step['db_cpu_pct']:>4.0f} "
                f"{step['other_cpu_pct']:>6.0f} {step['machine_cpu_pct']:>5.0f}"
            )
        sustained = run["sustained_moves_per_s"]
        met = "met" if sustained >= THROUGHPUT_TARGET else "MISSED"
        lines.append(
            f"  sustained: {sustained:.0f} moves/s with p99 < {run['limit_ms']:g} ms "
            f"(target ≥ {THROUGHPUT_TARGET:g}: {met}); all = whole machine (200% = both cores)"
        )
    return lines


def payload_table(results: dict[str, object]) -> list[str]:
    section = results.get("embedded")
    if not isinstance(section, dict) or "payload" not in section:
        return []
    lines = [
        "",
        "Payload: bytes of the one message every screen gets per move",
        f"{'board':<22} {'move':<24} {'cells':>6} {'bytes':>8} {'bytes/cell':>10}",
    ]
    for row in section["payload"]["moves"]:
        per_cell = row["bytes"] / max(1, row["cells"])
        lines.append(
            f"{row['preset']:<22} {row['move']:<24} {row['cells']:>6} {row['bytes']:>8} "
            f"{per_cell:>10.0f}"
        )
    lines.append("Full snapshot (sent on every connect and sync):")
    for row in section["payload"]["snapshots"]:
        lines.append(f"  {row['preset']:<20} {row['when']:<10} {row['bytes']:>8} bytes")
    return lines


def memory_table(results: dict[str, object]) -> list[str]:
    section = results.get("embedded")
    if not isinstance(section, dict) or "memory" not in section:
        return []
    memory = section["memory"]
    lines = [
        "",
        f"Memory: Daphne resident memory with idle connections (rooms of {memory['per_room']}: "
        f"1 player + spectators); idle baseline {memory['baseline_mb']} MB",
        f"{'connections':>11} {'RSS MB':>8} {'KB/conn':>8} {'connect s':>9}",
    ]
    for point in memory["points"]:
        lines.append(
            f"{point['connections']:>11} {point['rss_mb']:>8.1f} "
            f"{point['kb_per_connection']:>8.1f} {point['connect_s']:>9.2f}"
        )
    lines.append(f"  after closing them all: {memory['after_close_mb']} MB")
    return lines


def engine_table(results: dict[str, object]) -> list[str]:
    engine = results.get("engine")
    if not isinstance(engine, dict):
        return []
    lines = ["", "Engine: full-cascade reveal (bench.engine_reveal, fewer repeats)"]
    lines.append(f"{'board':>11} {'opened':>9} {'median ms':>10} {'p95 ms':>9} {'µs/cell':>8}")
    for r in engine["reveal"]:
        lines.append(
            f"{r['side']}x{r['side']:<{10 - len(str(r['side']))}} {r['cells_opened']:>9} "
            f"{r['median_ms']:>10.3f} {r['p95_ms']:>9.3f} {r['us_per_cell']:>8.3f}"
        )
    lines.append("Engine: no-guess generation, first click in the centre (bench.engine_noguess)")
    lines.append(f"{'board':>14} {'seeds':>7} {'ok':>5} {'median ms':>10} {'p95 ms':>8}")
    for r in engine["noguess"]:
        lines.append(
            f"{r['name']:>14} {r['seeds_run']:>3}/{r['seeds_asked']:<3} {r['success_rate']:>5.0%} "
            f"{r['median_ms']:>10.2f} {r['p95_ms']:>8.2f}"
        )
    if engine.get("render"):
        lines.append("Rendering, CPU ms (bench.render): kept cells vs plain templates")
        lines.append(f"{'board':<14} {'what':<26} {'kept cells':>10} {'plain':>8}")
        for r in engine["render"]:
            lines.append(
                f"{r['board']:<14} {r['what']:<26} {r['kept_cells_ms']:>10.2f} {r['plain_ms']:>8.2f}"
            )
    replay = engine.get("replay")
    if isinstance(replay, dict):
        lines.append(
            f"Replay position, wall ms (bench.replay_page): {replay['game']}, page "
            f"{replay['page_bytes'] // 1024} KiB, target {replay['target_ms']:.0f} ms"
        )
        lines.append(f"{'what':<26} {'median ms':>10} {'p95 ms':>8}")
        for r in replay["rows"]:
            lines.append(f"{r['what']:<26} {r['median_ms']:>10.2f} {r['p95_ms']:>8.2f}")
    race = engine.get("race_replay")
    if isinstance(race, dict):
        lines.append(
            f"Race replay, wall ms (bench.race_replay_page): {race['race']}, page "
            f"{race['page_bytes'] // 1024} KiB, target {race['target_ms']:.0f} ms"
        )
        lines.append(f"{'what':<26} {'median ms':>10} {'p95 ms':>8}")
        for r in race["rows"]:
            lines.append(f"{r['what']:<26} {r['median_ms']:>10.2f} {r['p95_ms']:>8.2f}")
    return lines


def attack_table(results: dict[str, object]) -> list[str]:
    """Issue 26's memory attack per shape: the quiet room during it, memory before and after."""
    runs = results.get("attack") or []
    if not runs:
        return []
    lines = ["", "Slow readers (60 sockets cut off and reconnecting), a quiet room's moves:"]
    for run in runs:
        quiet, rss = run["attacked"], run["rss_mb"]
        lines.append(
            f"  {run['shape']:<45} {run['attack_seconds']:.0f} s: p50 {quiet.get('p50_ms')} ms"
            f"  p99 {quiet.get('p99_ms')} ms  RSS {rss['before']} -> peak {rss['peak_during']}"
            f" -> {rss['after']} MB ({run['rss_after_vs_before_pct']:+} %), cut off"
            f" {run.get('cut_off')}, load {run['load_1min_before']:.1f}"
        )
    return lines


def table(results: dict[str, object]) -> str:
    machine = results["machine"]
    lines = [
        f"Minesweeper Live bench: {machine['cpus']} CPUs, Python {machine['python']}, "
        "clients and servers on the same machine",
        "",
    ]
    if any(k in results for k in ("embedded", "production", "production_core")):
        lines += latency_table(results)
        lines += race_table(results)
    lines += throughput_table(results)
    lines += payload_table(results)
    lines += memory_table(results)
    lines += engine_table(results)
    if results.get("probe"):
        lines += ["", *probe.table(results["probe"])]
    lines += attack_table(results)
    if results.get("crowd"):
        lines += ["", *crowd.verdicts(results["crowd"])]
    lines.append(
        f"\nRetried: {results.get('join_retries', 0)} joins (HTTP 500), "
        f"{results.get('connect_retries', 0)} websocket handshakes (dropped by the server)"
    )
    return "\n".join(lines)
