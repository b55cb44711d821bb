"""Runs a `tafl` training run on a Ray cluster: self-play on many CPU machines, learning on one.

The run folder lives on the driver's machine only. Each iteration:

* self-play: the iteration's games are cut into tasks of --games-per-task games. The files a
  task needs (the run's config.toml and state.json, and the checkpoint self-play plays with) go
  to the object store once and are broadcast to the tasks; each task runs
  `tafl selfplay COPY --games A..B --out DIR` on a worker and returns the shards' bytes with
  their SHA-256. The driver checks each digest and writes the shards into the run in game order
  (a shard is never written before those of earlier games, so the run's own resume logic always
  sees a contiguous prefix), then `tafl selfplay RUN` ends the stage.
* learning: one learner actor (with a GPU when --learner-gpus asks for one) receives the files
  the stage reads (config, state, the latest checkpoint with its optimizer state, the replay
  window's shards), runs `tafl learn`, and returns the new checkpoint and state, which the
  driver writes into the run (the state last).
* gating: `tafl gate RUN` on the driver's machine.

A task whose worker or node dies is played again by the driver (--retries times), after a
wait that doubles each time (2 s, 4 s, ... at most 30 s): the cluster needs some seconds to
notice a node is gone, and a task sent again at once would land on the dead node again. What was
in flight is the only loss. The driver itself can be stopped and started again at any time: it
reads where the run is from its state file, as `tafl train --resume` does.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ray


def log(message):
    print(f"[driver {time.strftime('%H:%M:%S')}] {message}", flush=True)


def read_files(root, relpaths):
    """{relative path: bytes} of the files of `root` named."""
    return {p: (root / p).read_bytes() for p in relpaths}


def materialize(files, root):
    """Writes {relative path: bytes} under `root`."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def write_atomic(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def run_tafl(tafl, args, stdout_only=False):
    done = subprocess.run([tafl, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"tafl {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout if stdout_only else done.stdout + done.stderr


# Ray does not retry it itself: the driver does, and says so (a lost task is played again).
@ray.remote(num_cpus=1, max_retries=0)
def selfplay_task(tafl, files, first, end):
    """Plays games first..end of the iteration; returns the node it ran on and
    [(name, bytes, sha256)] in shard order."""
    with tempfile.TemporaryDirectory(prefix="tafl-selfplay-") as tmp:
        run, out = Path(tmp) / "run", Path(tmp) / "out"
        materialize(files, run)
        run_tafl(tafl, ["selfplay", str(run), "--games", f"{first}..{end}", "--out", str(out), "--quiet"])
        shards = []
        for path in sorted(out.iterdir()):
            if path.name.startswith("shard-"):
                data = path.read_bytes()
                shards.append((path.name, data, hashlib.sha256(data).hexdigest()))
        return ray.get_runtime_context().get_node_id(), shards


@ray.remote(max_restarts=-1, max_task_retries=3)
class Learner:
    """Runs the learning stage on a copy of the files it reads; returns what it wrote."""

    def __init__(self, tafl):
        self.tafl = tafl

    def learn(self, files, iteration):
        with tempfile.TemporaryDirectory(prefix="tafl-learn-") as tmp:
            run = Path(tmp) / "run"
            materialize(files, run)
            said = run_tafl(self.tafl, ["learn", str(run), "--quiet"])
            ckpt = Path("checkpoints") / f"iter-{iteration:04}"
            out = {}
            if (run / ckpt).is_dir():
                for path in (run / ckpt).iterdir():
                    out[str(ckpt / path.name)] = path.read_bytes()
            out["state.json"] = (run / "state.json").read_bytes()
            return out, said


def state_of(run):
    return json.loads((run / "state.json").read_text())


def config_of(run):
    import tomllib

    return tomllib.loads((run / "config.toml").read_text())


def shard_dir(run, iteration):
    return run / "shards" / f"iter-{iteration:04}"


def games_on_disk(run, iteration):
    """Games in the contiguous shards shard-0000... of an iteration, and how many shards."""
    games, k = 0, 0
    d = shard_dir(run, iteration)
    while (d / f"shard-{k:04}.json").exists() and (d / f"shard-{k:04}.bin").exists():
        games += json.loads((d / f"shard-{k:04}.json").read_text())["games"]
        k += 1
    return games, k


def selfplay_stage(args, run, state, config):
    it, total = (int(x) for x in run_tafl(args.tafl, ["selfplay", str(run), "--plan"], True).split())
    first, next_shard = games_on_disk(run, it)
    # The checkpoint self-play plays with; the teacher's iterations need none, but sending the
    # best one costs little.
    best = Path("checkpoints") / f"iter-{state['best']:04}"
    rels = ["config.toml", "state.json"] + [str(best / p.name) for p in (run / best).iterdir()
                                           if p.name != "optimizer.bin"]
    files = ray.put(read_files(run, rels))
    tasks = []
    for a in range(first, total, args.games_per_task):
        tasks.append((a, min(a + args.games_per_task, total)))
    log(f"iteration {it}: self-play of games {first}..{total} in {len(tasks)} tasks")
    pending = {}
    # (task index, time before which it is not sent): lost tasks wait before they go again.
    queue = [(k, 0.0) for k in range(len(tasks))]
    results = {}
    attempts = {}
    written = 0
    while queue or pending:
        now = time.monotonic()
        for item in [q for q in queue if q[1] <= now][: max(0, args.actors - len(pending))]:
            queue.remove(item)
            k = item[0]
            a, b = tasks[k]
            # SPREAD: the broadcast files would otherwise pull every task to the driver's node.
            task = selfplay_task.options(scheduling_strategy="SPREAD")
            pending[task.remote(args.tafl, files, a, b)] = k
        if not pending:
            time.sleep(max(0.0, min(t for _, t in queue) - time.monotonic()))
            continue
        # A timeout, so that a lost task whose wait is over is sent while others still play.
        waiting = [t for _, t in queue]
        timeout = max(0.1, min(waiting) - time.monotonic()) if waiting else None
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=timeout)
        if not ready:
            continue
        k = pending.pop(ready[0])
        try:
            node, results[k] = ray.get(ready[0])
        except ray.exceptions.RayError as e:
            # A worker or node lost with the task on it (Ray retries some of these itself, not
            # all): the task goes back in the queue; a task that keeps failing stops the run.
            attempts[k] = attempts.get(k, 0) + 1
            if attempts[k] > args.retries:
                raise
            wait = min(30, 2 ** attempts[k])
            log(f"iteration {it}: task {k} lost ({type(e).__name__}); retrying it in {wait} s, attempt {attempts[k] + 1}")
            queue.insert(0, (k, time.monotonic() + wait))
            continue
        log(f"iteration {it}: task {k} (games {tasks[k][0]}..{tasks[k][1]}) done on node {node[:8]}")
        # Into the run in game order: only a contiguous prefix of tasks is written.
        while written in results:
            for name, data, digest in results.pop(written):
                if hashlib.sha256(data).hexdigest() != digest:
                    raise RuntimeError(f"task {written}: {name} arrived damaged")
                ext = name.rsplit(".", 1)[1]
                # The .bin first: a shard counts once its .json is there too.
                write_atomic(shard_dir(run, it) / f"shard-{next_shard:04}.{ext}", data)
                if ext == "json":
                    next_shard += 1
            written += 1
    run_tafl(args.tafl, ["selfplay", str(run), "--quiet"])


def learn_stage(args, run, state, config, learner):
    it = state["iteration"]
    latest = Path("checkpoints") / f"iter-{state['latest']:04}"
    window = config.get("replay", {}).get("window_iterations", 1)
    rels = ["config.toml", "state.json"] + [str(latest / p.name) for p in (run / latest).iterdir()]
    for i in range(max(1, it - window + 1), it + 1):
        d = shard_dir(run, i)
        if d.is_dir():
            rels += [str(d.relative_to(run) / p.name) for p in d.iterdir() if p.name.startswith("shard-")]
    out, _ = ray.get(learner.learn.remote(ray.put(read_files(run, rels)), it))
    state_bytes = out.pop("state.json")
    for rel, data in out.items():
        write_atomic(run / rel, data)
    write_atomic(run / "state.json", state_bytes)
    log(f"iteration {it}: learned checkpoint iter-{it:04}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", type=Path, help="the run folder (made by `tafl train CONFIG --out RUN --stop-after 0`)")
    p.add_argument("--tafl", required=True, help="the tafl binary, at this path on every node")
    p.add_argument("--address", default=None, help="the Ray cluster (default: start a local one)")
    p.add_argument("--actors", type=int, default=2, help="self-play tasks in flight at once")
    p.add_argument("--games-per-task", type=int, default=4)
    p.add_argument("--learner-gpus", type=float, default=0, help="GPUs of the learner actor")
    p.add_argument(
        "--node-ip-address",
        default=None,
        help="this machine's address as the cluster knows it, where it has several (the driver "
        "attaches to the node at that address; default: Ray's choice)",
    )
    p.add_argument("--retries", type=int, default=5, help="times a lost self-play task is played again")
    p.add_argument("--stop-after", type=int, default=None, help="stop after this iteration")
    args = p.parse_args()
    args.tafl = os.path.abspath(args.tafl)
    run = args.run.resolve()
    ray.init(address=args.address, log_to_driver=False, _node_ip_address=args.node_ip_address)
    # No CPU held: the learner runs only while self-play waits, and must not keep a node's
    # CPU from the self-play tasks.
    learner = Learner.options(num_cpus=0, num_gpus=args.learner_gpus).remote(args.tafl)
    config = config_of(run)
    last = config["iterations"] if args.stop_after is None else min(args.stop_after, config["iterations"])
    while True:
        state = state_of(run)
        if state["iteration"] > last:
            break
        phase = state["phase"]
        if phase == "self_play":
            selfplay_stage(args, run, state, config)
        elif phase == "train":
            learn_stage(args, run, state, config, learner)
        elif phase == "pretrain":
            # Pretraining reads the records file named in the config, on this machine.
            run_tafl(args.tafl, ["learn", str(run), "--quiet"])
        else:
            run_tafl(args.tafl, ["gate", str(run), "--quiet"])
            log(f"iteration {state['iteration']}: gated")
    log(f"done: {run} is at iteration {state_of(run)['iteration']}")


if __name__ == "__main__":
    sys.exit(main())
