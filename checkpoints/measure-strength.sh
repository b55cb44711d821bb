#!/usr/bin/env bash
# The standard strength table: each shipped network against the hand-written search, both at
# 100 simulations and both making 10% random moves (the exploration rule of the balance
# study's skilled rows: without it, every game under these defender-favoured rules is a
# defenders' win and a match measures nothing), in colour-swapped pairs from shared random
# openings. For each ruleset it runs
#
#   tafl arena mcts:model=shipped:100 mcts:heuristic:100 --rules R --games GAMES --exploration 0.1 --seed 1
#
# and prints a markdown table on stdout: the network's results as attackers and as defenders
# (W-D-L), its score and Elo with the 95% interval, and the attackers' wins of each player in
# the same match (the network's as attackers, the hand-written search's as attackers).
#
#   checkpoints/measure-strength.sh [GAMES] [RULESETS...]      (default: 200 brandubh tablut hnefatafl)
#
# Environment: TAFL, the binary to use (default: target/release/tafl, built first with
# cargo build --release); SIMULATIONS (100), EXPLORATION (0.1) and SEED (1) change the match.
# MOVETIME=SECONDS compares at equal time instead: both players think MOVETIME a move
# (`mcts:model=shipped` against `mcts:heuristic`, `--movetime MOVETIME`), one game at a time
# (THREADS, default 1) so that each move has every core of the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-200}"
shift || true
rulesets=("${@:-brandubh tablut hnefatafl}")
read -r -a rulesets <<<"${rulesets[*]}"
sims="${SIMULATIONS:-100}"
exploration="${EXPLORATION:-0.1}"
seed="${SEED:-1}"
if [[ -n "${TAFL:-}" ]]; then
  tafl="$TAFL"
else
  cargo build --release --quiet --bin tafl >&2
  tafl=target/release/tafl
fi
net="mcts:model=shipped:$sims"
search="mcts:heuristic:$sims"
timing=()
if [[ -n "${MOVETIME:-}" ]]; then
  net="mcts:model=shipped"
  search="mcts:heuristic"
  timing=(--movetime "$MOVETIME" --threads "${THREADS:-1}")
fi
echo "| rules | games | network as attackers W-D-L | network as defenders W-D-L | score | Elo (95% interval) | attackers' wins: network / search |"
echo "|---|---|---|---|---|---|---|"
reruns=()
for rules in "${rulesets[@]}"; do
  echo "$rules: $net vs $search ${timing[*]}, $games games, exploration $exploration ..." >&2
  out=$("$tafl" arena "$net" "$search" --rules "$rules" --games "$games" \
    --exploration "$exploration" --seed "$seed" "${timing[@]}")
  # `attackers W D L` and `defenders W D L`: the network's rows (it is player A).
  att=$(awk '$1 == "attackers" {print $2"-"$3"-"$4}' <<<"$out")
  def=$(awk '$1 == "defenders" {print $2"-"$3"-"$4}' <<<"$out")
  # The search's wins as attackers are the network's losses as defenders.
  net_att_wins=$(awk '$1 == "attackers" {print $2}' <<<"$out")
  search_att_wins=$(awk '$1 == "defenders" {print $4}' <<<"$out")
  line=$(grep '^A: ' <<<"$out") || true
  if [[ -z "$att" || -z "$def" || -z "$line" ]]; then
    echo "measure-strength.sh: unexpected arena output for $rules:" >&2
    echo "$out" >&2
    exit 1
  fi
  elo=$(sed -E 's/^A: ([^ ]+) Elo \(95%: ([^)]*)\), score ([0-9.]+).*/\1 (\2)|\3/' <<<"$line")
  echo "| $rules | $games | $att | $def | ${elo#*|} | ${elo%|*} | $net_att_wins / $search_att_wins |"
  reruns+=("$(sed -n 's/^rerun: //p' <<<"$out")")
done
echo
echo "Commands (each rerun reproduces its row):"
echo
for r in "${reruns[@]}"; do
  echo "    $r"
done
