#!/usr/bin/env bash
# The standard strength table: each shipped network against the hand-written search, both at
# 100 simulations, in colour-swapped pairs. Two rules of play measure it (README, "Measuring
# strength"):
#
# - RULE=suite (the default): every pair starts from the next position of the ruleset's
#   opening suite, checkpoints/openings/RULES.txt (positions from which equal skilled players
#   score about even), with no random moves after it:
#
#     tafl arena mcts:model=shipped:100 mcts:heuristic:100 --rules R --games GAMES --openings checkpoints/openings/R.txt --exploration 0 --seed 1
#
# - RULE=exploration (the table before the suites, kept for continuity): both players make
#   10% random moves, pairs from 4 random plies. It separates players on 11x11 boards but
#   not on 7x7 and 9x9, where a defence that errs one move in ten still wins nearly every game:
#
#     tafl arena mcts:model=shipped:100 mcts:heuristic:100 --rules R --games GAMES --exploration 0.1 --seed 1
#
# It prints a markdown table on stdout: the network's results as attackers and as defenders
# (W-D-L), its score and Elo with the 95% interval, and the attackers' wins of each player in
# the same match (the network's as attackers, the hand-written search's as attackers).
#
#   checkpoints/measure-strength.sh [GAMES] [RULESETS...]      (default: 200 brandubh tablut hnefatafl)
#
# Environment: TAFL, the binary to use (default: target/release/tafl, built first with
# cargo build --release); RULE (suite); SIMULATIONS (100), EXPLORATION (0.1 under the
# exploration rule, 0 under the suite) and SEED (1) change the match; A and B replace the
# players (default mcts:model=shipped:SIMS and mcts:heuristic:SIMS).
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
rule="${RULE:-suite}"
case "$rule" in
  suite) exploration="${EXPLORATION:-0}" ;;
  exploration) exploration="${EXPLORATION:-0.1}" ;;
  *) echo "measure-strength.sh: RULE=$rule; use suite or exploration" >&2; exit 2 ;;
esac
seed="${SEED:-1}"
if [[ -n "${TAFL:-}" ]]; then
  tafl="$TAFL"
else
  cargo build --release --quiet --bin tafl >&2
  tafl=target/release/tafl
fi
net="${A:-mcts:model=shipped:$sims}"
search="${B:-mcts:heuristic:$sims}"
timing=()
if [[ -n "${MOVETIME:-}" ]]; then
  net="${A:-mcts:model=shipped}"
  search="${B:-mcts:heuristic}"
  timing=(--movetime "$MOVETIME" --threads "${THREADS:-1}")
fi
echo "| rules | rule | games | A as attackers W-D-L | A as defenders W-D-L | score | Elo (95% interval) | attackers' wins: A / B |"
echo "|---|---|---|---|---|---|---|---|"
reruns=()
for rules in "${rulesets[@]}"; do
  start=()
  if [[ "$rule" == suite ]]; then
    start=(--openings "checkpoints/openings/$rules.txt")
  fi
  echo "$rules: $net vs $search ${timing[*]}, $games games, $rule rule, exploration $exploration ..." >&2
  out=$("$tafl" arena "$net" "$search" --rules "$rules" --games "$games" \
    --exploration "$exploration" --seed "$seed" "${start[@]}" "${timing[@]}")
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
  echo "| $rules | $rule | $games | $att | $def | ${elo#*|} | ${elo%|*} | $net_att_wins / $search_att_wins |"
  reruns+=("$(sed -n 's/^rerun: //p' <<<"$out")")
done
echo
echo "Commands (each rerun reproduces its row):"
echo
for r in "${reruns[@]}"; do
  echo "    $r"
done
