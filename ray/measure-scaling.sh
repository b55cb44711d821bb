#!/usr/bin/env bash
# The figures of ray/README.md's scaling table, measured on this machine: for each ruleset's
# training config, self-play games per hour (`tafl bench --selfplay`, the config's network
# self-play with the shipped network, on every core) and the learner's training samples per
# second (a one-iteration run of the same model with almost no self-play, read from its state).
#
#   ray/measure-scaling.sh [TAFL] > scaling.txt
set -euo pipefail
cd "$(dirname "$0")/.."
tafl="${1:-target/release/tafl}"
cores=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $cores cores"
echo "| rules | config | self-play games/hour ($cores cores) | per core | learner samples/s (CPU) |"
echo "|---|---|---|---|---|"
for pair in brandubh:configs/train/brandubh.toml tablut:checkpoints/tablut/config.toml hnefatafl:checkpoints/hnefatafl/config.toml; do
    rules=${pair%%:*}
    config=${pair#*:}
    gph=$("$tafl" bench --selfplay "$config" --games 32 2>&1 | sed -n 's/.*: \([0-9]*\) games\/hour.*/\1/p' | tail -1)
    # The learner alone: one iteration whose self-play is 4 short games of the teacher.
    sed -e 's/^iterations = .*/iterations = 1/' \
        -e '/^\[teacher\]/,/^\[/{s/^iterations = .*/iterations = 1/;s/^games_per_iteration = .*/games_per_iteration = 4/;s/^simulations = .*/simulations = 8/}' \
        -e '/^\[selfplay\]/,/^\[/{s/^games_per_iteration = .*/games_per_iteration = 4/;s/^ply_limit = .*/ply_limit = 20/}' \
        -e '/^\[training\]/,/^\[/{s/^steps_per_iteration = .*/steps_per_iteration = 40/}' \
        -e '/^\[arena\]/,/^\[/{s/^games = .*/games = 0/;s/^ladder_every = .*/ladder_every = 0/}' \
        "$config" > "$tmp/$rules.toml"
    if ! grep -q '^\[teacher\]' "$tmp/$rules.toml"; then
        printf '\n[teacher]\nevaluator = "heuristic"\niterations = 1\nsimulations = 8\ngames_per_iteration = 4\n' >> "$tmp/$rules.toml"
    fi
    "$tafl" train "$tmp/$rules.toml" --out "$tmp/$rules-run" --quiet --no-install > /dev/null 2>&1
    sps=$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['history'][0]['samples_per_second']))" "$tmp/$rules-run/state.json")
    echo "| $rules | $config | $gph | $((gph / cores)) | $sps |"
done
