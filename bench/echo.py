"""Is a socket's share of a move Twisted's floor? Daphne CPU per message per socket, for a bare
Daphne fan-out (bench/echo_app.py: no Django, layer or database) beside ours (bench.probe).

    python -m bench.echo [--clients 2 100] [--messages 300]

For each path (`asgi`: Daphne's own send per socket; `framed`: framed once, written to each
connection as games/patches/daphne_frames.py does) it runs one Daphne, N sockets (bench/echo_client.js),
one of them sending 170-byte frames paced as the probe paces moves, and reads Daphne's CPU over
the sends. The slope between N=2 and N=100 is the cost of one more socket per message. About 40 s.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from . import procs
from .probe import CpuWatch, ensure_node_module, load, profile_lines
from .profile import summarise

CLIENT = Path(__file__).resolve().parent / "echo_client.js"


def one(
    path: str, clients: int, messages: int, logdir: Path, profile: bool = False
) -> dict[str, object]:
    port = procs.free_port()
    env = {**os.environ, "ECHO_PATH": path, "PYTHONPATH": str(procs.ROOT)}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    log = open(logdir / f"echo-{path}.log", "wb")  # noqa: SIM115
    daphne = subprocess.Popen(
        [str(procs.BIN / "daphne"), "-b", procs.HOST, "-p", str(port), *procs.WEBSOCKET_LIMITS]
        + ["bench.echo_app:application"],
        cwd=procs.ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=procs._die_with_parent,
    )
    log.close()
    procs._children.append(daphne)
    try:
        procs.wait_ready(port)
        spy = logdir.parent / f"echo-profile-{path}-{clients}.txt" if profile else None
        watch = CpuWatch([daphne.pid], spy)
        before = load()
        client = subprocess.Popen(
            ["node", str(CLIENT)],
            env={
                **os.environ,
                "WS_MODULE": str(ensure_node_module()),
                "URL": f"ws://{procs.HOST}:{port}/",
                "N": str(clients),
                "MESSAGES": str(messages),
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

        def marks() -> None:
            assert client.stderr is not None
            for line in client.stderr:
                if line.startswith("probe: "):
                    watch.mark(line.split()[1])

        reader = threading.Thread(target=marks, daemon=True)
        reader.start()
        timer = threading.Timer(120, client.kill)  # stdout is read here, stderr by `marks`
        timer.start()
        try:
            assert client.stdout is not None
            out = client.stdout.read()
            client.wait()
        finally:
            timer.cancel()
        reader.join(timeout=5)
        result = json.loads(out.strip().splitlines()[-1])
        cpu = watch.marks["measured"] - watch.marks["measuring"]
        result.update(
            path=path,
            server_cpu_s=round(cpu, 3),
            server_cpu_ms_per_message=round(1000 * cpu / messages, 3),
            load_before=before,
        )
        if spy is not None:
            result["profile"] = summarise([spy], top=40)
        return result
    finally:
        daphne.terminate()
        daphne.wait(timeout=10)
        procs._children.remove(daphne)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.echo", description=__doc__)
    parser.add_argument("--clients", type=int, nargs=2, default=[2, 100], metavar=("FEW", "MANY"))
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--profile", action="store_true", help="py-spy over the sends")
    args = parser.parse_args(argv)
    logdir = procs.ROOT / "bench" / "results" / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for path in ("asgi", "framed"):
            runs = [one(path, n, args.messages, logdir, args.profile) for n in args.clients]
            few, many = runs
            per_socket = (
                1000
                * (many["server_cpu_ms_per_message"] - few["server_cpu_ms_per_message"])
                / (many["N"] - few["N"])
            )
            rows.append((path, few, many, per_socket))
    finally:
        procs.stop_all()
    print("Bare Daphne fan-out (bench/echo_app.py), 170-byte frames, one sender, paced as moves")
    print(f"{'path':<8} {'N':>4} {'CPU ms/msg':>10} {'last p50':>8} {'p99':>6}  load")
    for path, few, many, per_socket in rows:
        for run in (few, many):
            print(
                f"{path:<8} {run['N']:>4} {run['server_cpu_ms_per_message']:>10} "
                f"{run['last']['p50']:>8} {run['last']['p99']:>6}  {run['load_before']}"
            )
        print(f"{path:<8} one more socket: {per_socket:.1f} µs of Daphne CPU per message")
        if "profile" in many:
            print(f"  {path} N={many['N']}: {profile_lines(many['profile'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
