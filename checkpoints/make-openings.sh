#!/usr/bin/env bash
# Builds the shipped opening suites, checkpoints/openings/RULES.txt, with the command each
# file's header repeats (the same seed makes the same file, whatever the thread count):
#
#   tafl openings --rules RULES --candidates N --seed 1 --out checkpoints/openings/RULES.txt
#
# with the defaults of `tafl openings` for the rest (judge mcts:heuristic:400 with each side's
# simulations drawn from 100 to 1600, candidates 2-10 plies before the end of source games in
# which the defenders erred three moves in ten and the attackers won, 8 games a candidate,
# kept when the attackers won 25-75% of them, at most 100 positions).
#
#   checkpoints/make-openings.sh [RULESETS...]      (default: brandubh tablut hnefatafl copenhagen)
#
# Environment: TAFL, the binary (default target/release/tafl, built first); CANDIDATES_<rules>
# overrides a ruleset's candidates. Balanced positions are rare under these defender-favoured
# rules (about 2 in 100 Brandubh candidates), so the small boards judge more candidates.
set -euo pipefail
cd "$(dirname "$0")/.."
rulesets=("${@:-brandubh tablut hnefatafl copenhagen}")
read -r -a rulesets <<<"${rulesets[*]}"
if [[ -n "${TAFL:-}" ]]; then
  tafl="$TAFL"
else
  cargo build --release --quiet --bin tafl >&2
  tafl=target/release/tafl
fi
declare -A candidates=([brandubh]=3500 [tablut]=1000 [hnefatafl]=500 [copenhagen]=500)
for rules in "${rulesets[@]}"; do
  var="CANDIDATES_$rules"
  n="${!var:-${candidates[$rules]:-500}}"
  echo "$rules: $n candidates ..." >&2
  "$tafl" openings --rules "$rules" --candidates "$n" --seed 1 --out "checkpoints/openings/$rules.txt"
done
