#!/usr/bin/env bash
# Our player against hnefatafl.org's engine (`hnefatafl-text-protocol` of the crates.io
# package hnefatafl-copenhagen: its alpha-beta AI at depth 4 over HTP, or the AI that
# AI_SECONDS or DEPTH choose, below) under
# Copenhagen, our side at MOVETIME seconds a move, in colour-swapped pairs from shared
# random openings. Each pair is its own arena, so that an interrupted measurement keeps the
# pairs it finished (one log each in OUT, and each pair's games as records in OUT/games-S):
#
#   tafl arena PLAYER htp:ENGINE --rules copenhagen-hnefatafl-org --games 2 --seed S --movetime 1 \
#       --opening-plies 4 --threads 2 --search-threads 1          (S = SEED .. SEED+PAIRS-1)
#
# and prints PLAYER's totals: W-D-L as attackers and as defenders, the score with its 95%
# interval, and the games that the engine forfeited or that its own rules ended (its
# judgement that a king cannot escape). Both sides play hnefatafl.org's house rules
# (`copenhagen-hnefatafl-org`: no repeated board for the defenders, a draw after 141 plies).
#
#   checkpoints/measure-external.sh [PAIRS] [PLAYER]     (default: 20 level:5)
#
# Environment: TAFL, the binary to use (default: target/release/tafl, built first); ENGINE,
# the program with its arguments (default: `hnefatafl-text-protocol`, installed into
# ../scratch/hnefatafl with
#   cargo install hnefatafl-copenhagen --version 6.4.1 --no-default-features \
#     --bin hnefatafl-text-protocol --root ../scratch/hnefatafl --locked
# when missing); AI_SECONDS (its monte-carlo AI at that many seconds a move, whole seconds) or
# DEPTH (its alpha-beta AI at that depth): either plays the program as a bot that connects to
# us (`htp-host:`, `--host ADDRESS` added), the one mode of hnefatafl-text-protocol 6.4.1 that
# honours its AI flags; without them it is played over stdin (`htp:`), where it always
# searches alpha-beta at depth 4 (there it ignores `--depth`: the runs of 5 and 6 December
# with DEPTH=3 played depth 4). Its monte-carlo AI searches on every core it may use
# (`taskset -c 1 PROGRAM` as ENGINE gives it one, as our side's one search thread); MOVETIME
# (1), SEED (1), THREADS (2: both games of a pair at once, one core each), SEARCH_THREADS (1),
# INFERENCE (our networks' engine, `tafl --inference`: auto, burn, onnxruntime or int8; default
# auto), OUT (a log folder, default ../scratch/external-logs).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-20}"
player="${2:-level:5}"
movetime="${MOVETIME:-1}"
seed="${SEED:-1}"
threads="${THREADS:-2}"
search_threads="${SEARCH_THREADS:-1}"
out="${OUT:-../scratch/external-logs}"
if [[ -n "${TAFL:-}" ]]; then
  tafl="$TAFL"
else
  cargo build --release --quiet --bin tafl >&2
  tafl=target/release/tafl
fi
if [[ -n "${ENGINE:-}" ]]; then
  engine="$ENGINE"
else
  root="$(realpath -m ../scratch/hnefatafl)"
  engine="$root/bin/hnefatafl-text-protocol"
  if [[ ! -x "$engine" ]]; then
    echo "installing hnefatafl-text-protocol into $root ..." >&2
    cargo install hnefatafl-copenhagen --version 6.4.1 --no-default-features \
      --bin hnefatafl-text-protocol --root "$root" --locked >&2
  fi
fi
protocol=htp
if [[ -n "${AI_SECONDS:-}" ]]; then
  engine="$engine --ai monte-carlo --seconds $AI_SECONDS"
  protocol=htp-host
elif [[ -n "${DEPTH:-}" ]]; then
  engine="$engine --ai basic --depth $DEPTH"
  protocol=htp-host
fi
mkdir -p "$out"
for ((s = seed; s < seed + pairs; s++)); do
  log="$out/pair-$s.txt"
  if [[ -s "$log" ]] && grep -q '^A: ' "$log"; then
    continue # finished before
  fi
  echo "pair $s: $player vs $protocol:$engine ..." >&2
  rm -rf "$out/games-$s" # an interrupted pair's records
  "$tafl" --inference "${INFERENCE:-auto}" arena "$player" "$protocol:$engine" --rules copenhagen-hnefatafl-org --games 2 --seed "$s" \
    --movetime "$movetime" --opening-plies 4 --threads "$threads" \
    --search-threads "$search_threads" --records "$out/games-$s" >"$log.tmp"
  mv "$log.tmp" "$log"
done
# Totals over the finished pairs of this range.
logs=()
for ((s = seed; s < seed + pairs; s++)); do
  [[ -s "$out/pair-$s.txt" ]] && logs+=("$out/pair-$s.txt")
done
awk -v player="$player" -f checkpoints/pair-totals.awk "${logs[@]}"
