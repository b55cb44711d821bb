#!/usr/bin/env bash
# Measures the AI levels of configs/levels.toml against each other: each level plays the level
# below it in colour-swapped pairs from shared random openings, under each ruleset with a
# shipped model (and Copenhagen, where levels 3-5 play their fallback), and the results become
# the table in checkpoints/README.md.
#
#   checkpoints/measure-levels.sh [GAMES] [RULESETS...]      (default: 200 brandubh tablut hnefatafl copenhagen)
#
# RULE=suite (the default) starts every pair from the next position of the ruleset's opening
# suite, checkpoints/openings/RULES.txt, with no random plies (the levels' own random moves
# stay); RULE=random keeps the table before the suites: pairs from 4 random plies.
#
# MAX_LEVEL (default 5) is the last level measured: level 6 thinks a second a move on every core,
# so its pairs take hours at 200 games (checkpoints/README.md, "At 1 s a move", measures it with
# `--threads 1`); MAX_LEVEL=6 includes it.
#
# Uses TAFL (a binary) if set, else target/release/tafl, built first with cargo build --release.
# Prints a markdown table on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
games="${1:-200}"
shift || true
rulesets=("${@:-brandubh tablut hnefatafl copenhagen}")
read -r -a rulesets <<<"${rulesets[*]}"
if [[ -n "${TAFL:-}" ]]; then
  tafl="$TAFL"
else
  cargo build --release --quiet --bin tafl >&2
  tafl=target/release/tafl
fi
levels=$(grep -c '^\[\[level\]\]' configs/levels.toml)
levels=$((levels < ${MAX_LEVEL:-5} ? levels : ${MAX_LEVEL:-5}))
rule="${RULE:-suite}"
case "$rule" in suite | random) ;; *) echo "measure-levels.sh: RULE=$rule; use suite or random" >&2; exit 2 ;; esac
echo "| rules | openings | level | vs level | games | as attackers W-D-L | as defenders W-D-L | score | Elo (95% interval) |"
echo "|---|---|---|---|---|---|---|---|---|"
for rules in "${rulesets[@]}"; do
  start=()
  if [[ "$rule" == suite ]]; then
    start=(--openings "checkpoints/openings/$rules.txt")
  fi
  for ((n = 2; n <= levels; n++)); do
    out=$("$tafl" arena "level:$n" "level:$((n - 1))" --rules "$rules" --games "$games" --seed 1 "${start[@]}")
    att=$(awk '$1 == "attackers" {print $2"-"$3"-"$4}' <<<"$out")
    def=$(awk '$1 == "defenders" {print $2"-"$3"-"$4}' <<<"$out")
    elo=$(grep '^A: ' <<<"$out" | sed -E 's/^A: ([^ ]+) Elo \(95%: ([^)]*)\), score ([0-9.]+).*/\1 (\2)|\3/')
    echo "| $rules | $rule | $n | $((n - 1)) | $games | $att | $def | ${elo#*|} | ${elo%|*} |"
  done
done
