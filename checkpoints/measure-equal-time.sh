#!/usr/bin/env bash
# A match at equal time spread over as many sittings as it takes: player A against player B at
# MOVETIME seconds a move each, one game at a time so that each move gets both cores, in
# colour-swapped pairs. Each pair is its own arena with its own log in OUT (and its two games as
# game records in OUT/games-K, `tafl arena --records`, to replay or analyze), so that an
# interrupted measurement keeps every pair it finished and a rerun plays only the rest: at 1 s a
# move a 100-game match under these rules takes about three hours of a 2-core machine, more
# than one sitting.
#
#   checkpoints/measure-equal-time.sh PAIRS A B RULES
#
# Pair k (k = SEED .. SEED+PAIRS-1) is
#
#   tafl arena A B --rules RULES --games 2 --seed k --movetime MOVETIME --threads 1 --ply-limit 400 START --records OUT/games-k
#
# where START depends on RULE: `suite` (the default for brandubh and tablut, whose exploration
# rule cannot separate players) plays position k of checkpoints/openings/RULES.txt (cycling) with
# no random moves; `exploration` (the default otherwise) opens with 4 random plies and both
# players make 10% random moves (README, "Measuring strength"). Prints A's totals: W-D-L per side,
# the score with its 95% interval.
#
# Environment: TAFL (the binary; default target/release/tafl, built first), MOVETIME (1), SEED
# (1), RULE, PLY_LIMIT (400), INFERENCE (the networks' engine, `tafl --inference`: auto, burn,
# onnxruntime or int8; default auto), OUT (default
# ../scratch/equal-time/RULES-A-B-MOVETIME-RULE[-INFERENCE], the specs' unsafe characters as
# `_`).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -ne 4 ]]; then
  echo "usage: checkpoints/measure-equal-time.sh PAIRS A B RULES" >&2
  exit 2
fi
pairs="$1" a="$2" b="$3" rules="$4"
movetime="${MOVETIME:-1}"
seed="${SEED:-1}"
ply_limit="${PLY_LIMIT:-400}"
case "$rules" in brandubh | tablut) default_rule=suite ;; *) default_rule=exploration ;; esac
rule="${RULE:-$default_rule}"
suite="checkpoints/openings/$rules.txt"
case "$rule" in
  suite) [[ -s "$suite" ]] || { echo "measure-equal-time.sh: no suite $suite" >&2; exit 2; } ;;
  exploration) ;;
  *) echo "measure-equal-time.sh: RULE=$rule; use suite or exploration" >&2; exit 2 ;;
esac
if [[ -n "${TAFL:-}" ]]; then
  tafl="$TAFL"
else
  cargo build --release --quiet --bin tafl >&2
  tafl=target/release/tafl
fi
inference="${INFERENCE:-auto}"
suffix=""
[[ "$inference" != auto ]] && suffix="-$inference"
out="${OUT:-../scratch/equal-time/$(tr -c 'A-Za-z0-9.\n-' '_' <<<"$rules-$a-$b-$movetime-$rule$suffix")}"
mkdir -p "$out"
if [[ "$rule" == suite ]]; then
  mapfile -t positions < <(grep -v '^#' "$suite" | grep -v '^rules ' | grep -v '^[[:space:]]*$')
  rules_line=$(grep -m1 '^rules ' "$suite")
fi
for ((s = seed; s < seed + pairs; s++)); do
  log="$out/pair-$s.txt"
  if [[ -s "$log" ]] && grep -q '^A: ' "$log"; then
    continue # finished before
  fi
  if [[ "$rule" == suite ]]; then
    # A suite of the one position this pair plays.
    one="$out/position-$s.txt"
    printf '%s\n%s\n' "$rules_line" "${positions[$(((s - 1) % ${#positions[@]}))]}" >"$one"
    start=(--openings "$one" --exploration 0)
  else
    start=(--opening-plies 4 --exploration 0.1)
  fi
  echo "pair $s: $a vs $b, $rules, $movetime s a move ($inference) ..." >&2
  rm -rf "$out/games-$s" # an interrupted pair's records
  "$tafl" --inference "$inference" arena "$a" "$b" --rules "$rules" --games 2 --seed "$s" --movetime "$movetime" --threads 1 \
    --ply-limit "$ply_limit" "${start[@]}" --records "$out/games-$s" >"$log.tmp"
  mv "$log.tmp" "$log"
done
# Totals over the finished pairs of this range.
logs=()
for ((s = seed; s < seed + pairs; s++)); do
  [[ -s "$out/pair-$s.txt" ]] && logs+=("$out/pair-$s.txt")
done
awk -v player="$a" -f checkpoints/pair-totals.awk "${logs[@]}"
