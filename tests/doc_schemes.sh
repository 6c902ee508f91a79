#!/bin/sh
# The time-stepping schemes as documented: step.h's opening comment and the API guide name every
# CDYN_SCHEME_* value and give their number in words (both said "four" when there were five).
#   doc_schemes.sh STEP_H API_MD
set -u
step_h=$1 api=$2
schemes=$(grep -o 'CDYN_SCHEME_[A-Z_]* = [0-9]*' "$step_h" | cut -d' ' -f1)
n=$(echo "$schemes" | wc -l)
words="zero one two three four five six seven eight nine ten"
word=$(echo $words | cut -d' ' -f$((n + 1)))
bad=0
head_comment=$(sed -n '1,/\*\//p' "$step_h")
for s in $schemes; do
  echo "$head_comment" | grep -q "$s" || { echo "step.h's opening comment does not list $s"; bad=1; }
  grep -q "\`$s\`" "$api" || { echo "the API guide does not list $s"; bad=1; }
done
echo "$head_comment" | grep -q "one of $word schemes" ||
  { echo "step.h's opening comment does not say 'one of $word schemes'"; bad=1; }
grep -q "one of $word schemes" "$api" || { echo "the API guide does not say 'one of $word schemes'"; bad=1; }
for w in $words; do
  [ "$w" = "$word" ] && continue
  if grep -q "$w schemes" "$step_h" "$api"; then echo "'$w schemes' where there are $n"; bad=1; fi
done
[ $bad -eq 0 ] && echo "$n schemes, documented"
exit $bad
