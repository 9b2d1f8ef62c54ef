#!/usr/bin/env bash
# Runs the window's test suites several times in a row while other processes keep the cores busy, and
# says per run whether it passed and how many tests ran: the check to run before landing a change to a
# view or to a window test. A test that waits for a first part of a state, or for time to pass, fails
# here sooner or later; one that waits for the final state (MainWindow#settled and the state asserted)
# does not.
#
# Usage:
#   scripts/stress-window-tests.sh [--runs N] [--hogs K] [--all]
#     --runs N   runs in a row (default 5)
#     --hogs K   busy loops (`yes > /dev/null`) beside the tests (default 2: both cores of the project's
#                build machine); they are killed when the script ends, however it ends
#     --all      every test of the app module and the modules it depends on (mvn -pl app -am verify)
#                instead of the window's suites (the tests under app/src/test/.../app/ui)
# Each run's Maven log is kept in target/stress-window-tests/run-N.log.
# Exit status: 0 every run passed, 1 a run failed (its failing tests are named), 2 bad usage.
set -uo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$root"

runs=5
hogs=2
all=0
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="${2:-}"; shift 2 || { echo "stress-window-tests: --runs needs a number" >&2; exit 2; } ;;
    --hogs) hogs="${2:-}"; shift 2 || { echo "stress-window-tests: --hogs needs a number" >&2; exit 2; } ;;
    --all) all=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "stress-window-tests: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "stress-window-tests: --runs must be a whole number from 1, got '$runs'" >&2; exit 2 ;; esac
case "$hogs" in ''|*[!0-9]*) echo "stress-window-tests: --hogs must be a whole number, got '$hogs'" >&2; exit 2 ;; esac

logs="$root/target/stress-window-tests"
mkdir -p "$logs"
busy=()
stop_hogs() {
  local p
  for p in "${busy[@]}"; do
    kill "$p" 2>/dev/null
  done
  busy=()
}
trap stop_hogs EXIT
trap 'echo "stress-window-tests: interrupted" >&2; exit 130' INT TERM

if [ "$all" = 1 ]; then
  what="every test of app and its modules"
  cmd=(mvn -B -ntp -pl app -am verify)
else
  what="the window suites (app/src/test/java/dev/arenascope/app/ui)"
  cmd=(mvn -B -ntp -pl app -am test "-Dtest=dev/arenascope/app/ui/**/*Test" -Dsurefire.failIfNoSpecifiedTests=false)
fi

# the sums of the tests, failures, errors and skips in the surefire reports of every module
counts() {
  cat "$root"/*/target/surefire-reports/TEST-*.xml 2>/dev/null | grep -o '<testsuite [^>]*>' | awk '
    function attr(s, n,   m) { if (match(s, " " n "=\"[0-9]+\"")) { m = substr(s, RSTART, RLENGTH); gsub(/[^0-9]/, "", m); return m + 0 } return 0 }
    { t += attr($0, "tests"); f += attr($0, "failures"); e += attr($0, "errors"); s += attr($0, "skipped") }
    END { printf "%d %d %d %d\n", t, f, e, s }'
}

# the tests that failed or erred, one "Class.method" a line
failed_tests() {
  cat "$root"/*/target/surefire-reports/TEST-*.xml 2>/dev/null | awk '
    /<testcase / { name = $0; sub(/.*name="/, "", name); sub(/".*/, "", name); cls = $0; sub(/.*classname="/, "", cls); sub(/".*/, "", cls) }
    /<(failure|error)[ >]/ { print "    " cls "." name }' | sort -u
}

for ((i = 0; i < hogs; i++)); do
  yes > /dev/null &
  busy+=($!)
done
echo "stress-window-tests: $runs runs of $what, $hogs busy loops beside, $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "  $(uptime | sed 's/^ *//')"

passed=0
for ((run = 1; run <= runs; run++)); do
  rm -rf "$root"/*/target/surefire-reports
  log="$logs/run-$run.log"
  start=$(date +%s)
  "${cmd[@]}" > "$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  read -r tests failures errors skipped <<< "$(counts)"
  load=$(cut -d' ' -f1 /proc/loadavg)
  if [ "$rc" = 0 ] && [ "$failures" = 0 ] && [ "$errors" = 0 ] && [ "$tests" -gt 0 ]; then
    passed=$((passed + 1))
    verdict=PASS
  else
    verdict=FAIL
  fi
  printf 'run %d/%d: %s  %d tests, %d failures, %d errors, %d skipped  (%dm%02ds, load %s, mvn exit %d)\n' \
    "$run" "$runs" "$verdict" "$tests" "$failures" "$errors" "$skipped" $((secs / 60)) $((secs % 60)) "$load" "$rc"
  if [ "$verdict" = FAIL ]; then
    failed_tests
    [ "$tests" -gt 0 ] || echo "    no test reports: the build failed before the tests ran (see $log)"
    echo "    log: $log"
  fi
done
stop_hogs
echo "stress-window-tests: $passed of $runs runs passed ($(date -u '+%Y-%m-%d %H:%M UTC'))"
[ "$passed" = "$runs" ]
