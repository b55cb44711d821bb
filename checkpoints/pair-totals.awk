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
  half = 1.96 * sqrt(var / n)
  printf "%s: %d games; as attackers %d-%d-%d, as defenders %d-%d-%d (W-D-L); score %.3f (95%%: %.3f .. %.3f); %d game(s) ended outside the rules\n", \
    player, n, aw, ad, al, dw, dd, dl, score, (score - half < 0 ? 0 : score - half), (score + half > 1 ? 1 : score + half), stopped
}
