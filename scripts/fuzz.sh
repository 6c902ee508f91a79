#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, ASan + UBSan) in build-fuzz/ and runs each in
# turn, one after the other (they are not parallel: the machine may be shared).
# Usage: scripts/fuzz.sh [RUNS | SECONDSs] [TARGET...]
#   scripts/fuzz.sh 2000         2000 executions per target (scripts/test.sh's smoke run)
#   scripts/fuzz.sh 600s         ten minutes per target
#   scripts/fuzz.sh 1e7 fuzz_ucp (a plain number: runs; 1e7 is accepted)
# Inputs found new are kept in build-fuzz/corpus/<target>/ (not in the repository: promote the
# interesting ones to tests/fuzz/corpus by hand); crashes go to build-fuzz/artifacts/ and make
# the script fail. Set FUZZ_JOBS=N to let libFuzzer fork N workers per target, and
# FUZZ_MAX_SECONDS=S to cap a run given in executions at S seconds per target, and FUZZ_FRESH=1
# to start from the seed corpora only (a temporary corpus: scripts/test.sh's smoke run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh clang libclang-rt-14-dev

budget=${1:-60s}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(fuzz_lcp_file fuzz_lemke fuzz_lcp_solve fuzz_lcp_fb fuzz_coneqp fuzz_ucp fuzz_structure
    fuzz_fc3d_file fuzz_fc3d fuzz_urdf)
case "$budget" in
  *s) limit=(-max_total_time="${budget%s}" -runs=-1) ;;
  *) limit=(-runs="$(awk -v r="$budget" 'BEGIN { printf "%d", r }')")
     [ -n "${FUZZ_MAX_SECONDS:-}" ] && limit+=(-max_total_time="$FUZZ_MAX_SECONDS") ;;
esac
jobs_flag=()
[ -n "${FUZZ_JOBS:-}" ] && jobs_flag=(-fork="$FUZZ_JOBS")
# The smoke run (FUZZ_FRESH, scripts/test.sh) mutates from a fixed seed, so that CI is
# reproducible: a finding shows up in every run of the same code, not at random.
[ -n "${FUZZ_FRESH:-}" ] && jobs_flag+=(-seed="${FUZZ_SEED:-1}")

export OPENBLAS_NUM_THREADS=1
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCDYN_FUZZ=ON \
  -DCDYN_BUILD_TESTS=OFF -DCDYN_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}"

mkdir -p build-fuzz/artifacts
corpus=build-fuzz/corpus
logs=build-fuzz
if [ -n "${FUZZ_FRESH:-}" ]; then
  corpus=$(mktemp -d)
  logs=$corpus
  trap 'rm -rf "$corpus"' EXIT
fi
for t in "${targets[@]}"; do
  mkdir -p "$corpus/$t"
  seeds=()
  # libFuzzer stops on a corpus folder that does not exist (git keeps no empty folders)
  [ -d tests/fuzz/corpus/"$t" ] && seeds+=(tests/fuzz/corpus/"$t")
  [ "$t" = fuzz_lcp_file ] && seeds+=(tests/data)
  # XML needs its words: the URDF target gets a dictionary of element and attribute names
  dict=()
  [ -f tests/fuzz/"$t".dict ] && dict=(-dict=tests/fuzz/"$t".dict)
  echo "== $t (${limit[*]})"
  # -max_len: the decoders read at most a few hundred bytes; the reader gets whole files.
  log="$logs/$t.log"
  rc=0
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    nice "build-fuzz/tests/fuzz/$t" "${limit[@]}" "${jobs_flag[@]}" "${dict[@]}" -max_len=4096 \
      -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" \
      "$corpus/$t" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  grep -E "^(stat::number_of_executed_units|stat::average_exec|==[0-9]+==|SUMMARY)" "$log" || true
  grep -E "invariant failed|runtime error" "$log" || true
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "cdyn: $t failed (input in build-fuzz/artifacts/)" >&2
    exit 1
  fi
done
