#!/bin/sh
# Every call of a public function written out in a documentation page, `cdyn_f(a, b, c)`, has as
# many arguments as the function's prototype in the public headers (docs once gave
# cdyn_state_copy without its arguments). `cdyn_f()` (a name) and argument lists with "..." or
# "…" are not checked. Every function of the header COMPLETE (e.g. cdyn/step.h) must be written
# out with its arguments at least once in the pages.
#   doc_signatures.sh INCLUDE_DIR COMPLETE PAGE...
set -u
inc=$1
complete=$(grep -o 'cdyn_[a-z0-9_]*(' "$inc/$2" | tr -d '(' | sort -u | tr '\n' ' ')
shift 2
cat "$inc"/cdyn/*.h | awk -v complete="$complete" '
  # the number of top-level arguments of the text between a call'"'"'s parentheses
  function nargs(s,    i, c, depth, n) {
    gsub(/^[ \t]+|[ \t]+$/, "", s)
    if (s == "" || s == "void") return 0
    n = 1; depth = 0
    for (i = 1; i <= length(s); i++) {
      c = substr(s, i, 1)
      if (c == "(" || c == "[" || c == "{") depth++
      else if (c == ")" || c == "]" || c == "}") depth--
      else if (c == "," && depth == 0) n++
    }
    return n
  }
  # the text from position p (just after an opening parenthesis) to its closing one
  function inner(s, p,    i, c, depth) {
    depth = 1
    for (i = p; i <= length(s); i++) {
      c = substr(s, i, 1)
      if (c == "(") depth++
      else if (c == ")" && --depth == 0) return substr(s, p, i - p)
    }
    return ""
  }
  FNR == 1 && NR != 1 { page++ }
  page == 0 { hdr = hdr " " $0; next }
  { doc[page] = doc[page] " " $0; name[page] = FILENAME }
  END {
    # prototypes: CDYN_API ... name(params);
    s = hdr
    while (match(s, /CDYN_API[^;]*;/)) {
      decl = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
      if (!match(decl, /cdyn_[a-z0-9_]+[ \t]*\(/)) continue
      fn = substr(decl, RSTART, RLENGTH); sub(/[ \t]*\($/, "", fn)
      arity[fn] = nargs(inner(decl, RSTART + RLENGTH))
    }
    bad = 0
    for (p = 1; p <= page; p++) {
      s = doc[p]
      while (match(s, /cdyn_[a-z0-9_]+\(/)) {
        fn = substr(s, RSTART, RLENGTH - 1)
        args = inner(s, RSTART + RLENGTH)
        s = substr(s, RSTART + RLENGTH)
        if (!(fn in arity) || args ~ /^[ \t]*$/ || args ~ /\.\.\.|…/) continue
        if (nargs(args) != arity[fn]) {
          printf "%s: %s(%s): %d arguments, the header declares %d\n", name[p], fn, args,
                 nargs(args), arity[fn]
          bad++
        } else {
          seen[fn] = 1
        }
        checked++
      }
    }
    n = split(complete, want, " ")
    for (i = 1; i <= n; i++)
      if ((want[i] in arity) && !(want[i] in seen)) {
        printf "%s is never written out with its %d arguments\n", want[i], arity[want[i]]
        bad++
      }
    printf "%d calls checked; %d problems\n", checked, bad
    exit bad > 0
  }
' - "$@"
