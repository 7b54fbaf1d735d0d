#!/usr/bin/env python3
"""One sitting of the event fan-out benchmark: servers and floors interleaved, medians.

    fanout-sitting.py [--rounds R] [--ws N] [--mutations M] [--fanout PATH]
                      [--world SPEC] LABEL=SERVER [LABEL=SERVER ...]

Run from the repository root. Each round runs, one after another: every SERVER (a terrain-server binary, started
fresh on a free loopback port with an empty data directory) under `terrain-fanout
--ws N --mutations M`; the first SERVER again with one subscriber (what the mutations
cost by themselves, scaled to N deliveries each); and both floors of
`scripts/fanout-floor.py` (its Python reader, then `terrain-fanout` as the reader).
Then it prints, per run, the median and range over the rounds of the CPU time per
delivered event and its user part, each server's total as a multiple of each
floor's, and the first server's total less its mutation as a multiple of each floor's
(the floors make no mutation). R defaults to 15 rounds, about two minutes: a median of
fifteen moves less from one sitting to the next than one of five.

The kernel's cost of a send varies from day to day on a shared machine: only figures
from one sitting compare (docs/src/benchmarks.md, "Event fan-out from another process").
"""
import argparse, os, re, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
CPU = re.compile(r"(?P<total>[\d.]+) us per delivered event \((?P<user>[\d.]+) us user")
FLOOR_A = re.compile(r"system (?P<system>[\d.]+) us, user (?P<user>[\d.]+) us per send")
LISTENING = re.compile(r"listening on (\S+)")
# The floors' runs, as the report names them; "floor A" and "floor B" for short.
FLOOR_RUNS = ("floor A (Python reader)", "floor B (read by terrain-fanout)")


def short(run):
    """A floor run's short name, "floor A"."""
    return run.split(" (")[0]


def server_run(binary, world, fanout, ws, mutations):
    """(total, user) us per delivered event for `binary` under terrain-fanout."""
    with tempfile.TemporaryDirectory(prefix="fanout-sitting-") as data:
        log_path = os.path.join(data, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen(
                [binary, "--listen", "127.0.0.1:0", "--data-dir", os.path.join(data, "store"),
                 "--world", world], stdout=log, stderr=subprocess.STDOUT)
        try:
            address = wait_listening(server, log_path)
            out = subprocess.run(
                [fanout, "--url", f"http://{address}", "--ws", str(ws), "--mutations",
                 str(mutations), "--server-pid", str(server.pid)],
                capture_output=True, text=True, timeout=600)
            if out.returncode != 0:
                sys.exit(f"terrain-fanout against {binary} failed:\n{out.stderr}")
            return parse(CPU, out.stdout, binary)
        finally:
            server.terminate()
            server.wait(timeout=30)


def wait_listening(server, log_path, timeout=60.0):
    """The address the server logged once listening and ready to answer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"the server exited with {server.returncode}: see {log_path}")
        with open(log_path) as log:
            text = log.read()
        found = LISTENING.search(text)
        if found and "ready" in text[found.end():]:
            return found.group(1)
        time.sleep(0.1)
    sys.exit(f"the server was not ready after {timeout} s: see {log_path}")


def parse(pattern, text, what):
    found = pattern.search(text)
    if not found:
        sys.exit(f"no figures in the output of {what}:\n{text}")
    return found


def floor(*args):
    """The output of fanout-floor.py ARGS, or an exit that shows what it said."""
    command = [sys.executable, os.path.join(HERE, "fanout-floor.py"), *map(str, args)]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({out.returncode}):\n{out.stdout}{out.stderr}")
    return out.stdout


def floor_a(ws, mutations):
    found = parse(FLOOR_A, floor(ws, mutations), "fanout-floor.py")
    user, system = float(found["user"]), float(found["system"])
    return user + system, user


def floor_b(ws, mutations, fanout):
    found = parse(CPU, floor(ws, mutations, "--fanout", fanout), "fanout-floor.py --fanout")
    return float(found["total"]), float(found["user"])


def figures(found):
    return float(found["total"]), float(found["user"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("servers", nargs="+", metavar="LABEL=SERVER")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--ws", type=int, default=1000)
    parser.add_argument("--mutations", type=int, default=300)
    parser.add_argument("--world", default="main:hyperscape:0")
    parser.add_argument("--fanout", default="target/release/terrain-fanout")
    args = parser.parse_args()
    servers = []
    for spec in args.servers:
        label, _, binary = spec.partition("=")
        if not binary or not os.access(binary, os.X_OK):
            sys.exit(f"{spec}: expected LABEL=PATH to a terrain-server binary")
        servers.append((label, binary))
    if not os.access(args.fanout, os.X_OK):
        sys.exit(f"--fanout {args.fanout}: not an executable (cargo build --release -p terrain-load)")

    runs = {}
    # The first server's run with one subscriber: what its mutations cost by themselves.
    alone_run = f"{servers[0][0]}, mutation alone per {args.ws}"
    def record(name, value):
        runs.setdefault(name, []).append(value)
        print(f"  {name}: {value[0]:.2f} us ({value[1]:.2f} user)", flush=True)

    for r in range(args.rounds):
        print(f"round {r + 1} of {args.rounds}, load {os.getloadavg()[0]:.2f}", flush=True)
        for label, binary in servers:
            record(label, figures(server_run(binary, args.world, args.fanout, args.ws,
                                             args.mutations)))
        label, binary = servers[0]
        alone = figures(server_run(binary, args.world, args.fanout, 1, args.mutations))
        record(alone_run, tuple(v / args.ws for v in alone))
        record(FLOOR_RUNS[0], floor_a(args.ws, args.mutations))
        record(FLOOR_RUNS[1], floor_b(args.ws, args.mutations, args.fanout))

    print(f"\n{args.ws} subscribers, {args.mutations} mutations, {args.rounds} rounds: "
          "CPU per delivered event, median (range), user")
    medians = {}
    for name, values in runs.items():
        totals, users = [v[0] for v in values], [v[1] for v in values]
        medians[name] = statistics.median(totals)
        print(f"  {name}: {medians[name]:.2f} us ({min(totals):.2f}-{max(totals):.2f}), "
              f"user {statistics.median(users):.2f} us")
    for label, _ in servers:
        # A run too short for the clock's 10 ms ticks measures no CPU at all.
        ratios = ", ".join(f"{medians[label] / medians[f]:.2f}x {short(f)}"
                           if medians[f] > 0 else f"{short(f)} measured no CPU"
                           for f in FLOOR_RUNS)
        print(f"  {label}: {ratios}")
    # What the delivery costs beyond the mutation that made the event (measured for
    # the first server only): the floors make no mutation.
    label = servers[0][0]
    alone = medians[alone_run]
    if all(medians[f] > 0 for f in FLOOR_RUNS):
        ratios = ", ".join(f"{(medians[label] - alone) / medians[f]:.2f}x {short(f)}"
                           for f in FLOOR_RUNS)
        print(f"  {label} less its mutation: {ratios}")


if __name__ == "__main__":
    main()
