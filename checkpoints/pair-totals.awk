# Totals of player A over finished `tafl arena` logs (one colour-swapped pair or more each):
# W-D-L as attackers and as defenders, the score with its 95% interval, and the games that
# ended outside the rules (a program's forfeit, its own rules' verdict: the arena lists them).
# Used by checkpoints/measure-external.sh and checkpoints/measure-equal-time.sh:
#
#   awk -v player=NAME -f checkpoints/pair-totals.awk LOG...
$1 == "attackers" && NF == 4 { aw += $2; ad += $3; al += $4 }
$1 == "defenders" && NF == 4 { dw += $2; dd += $3; dl += $4 }
/^  game / { print "  " FILENAME ": " substr($0, 3); stopped++ }
END {
  n = aw + ad + al + dw + dd + dl
  if (n == 0) { print "no finished games"; exit 1 }
  w = aw + dw; d = ad + dd
  score = (w + d / 2) / n
  # The variance of one game score (1, 1/2 or 0) around the mean.
  var = (w * (1 - score) ^ 2 + d * (0.5 - score) ^ 2 + (n - w - d) * score ^ 2) / n
  z = 1.96
  lo = score - z * sqrt(var / n); hi = score + z * sqrt(var / n)
  if (var == 0) {
    # Every game scored the same (4 wins of 4): the normal approximation collapses to a point,
    # so fall back to a Wilson interval on the score, as the arena's report does
    # (engine/src/stats.rs).
    c = (score + z * z / (2 * n)) / (1 + z * z / n)
    h = z * sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    lo = c - h; hi = c + h
  }
  printf "%s: %d games; as attackers %d-%d-%d, as defenders %d-%d-%d (W-D-L); score %.3f (95%%: %.3f .. %.3f); %d game(s) ended outside the rules\n", \
    player, n, aw, ad, al, dw, dd, dl, score, (lo < 0 ? 0 : lo), (hi > 1 ? 1 : hi), stopped
}
