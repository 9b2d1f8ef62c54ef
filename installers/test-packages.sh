#!/usr/bin/env bash
# Checks the built .deb as a user would meet it, with no JDK involved: unpacks it into a scratch root,
# runs the packaged CLI (--version, recording a sample workload, a report), checks the desktop entry,
# file association, icon and man page, and opens the window under Xvfb for a screenshot.
# Run through Maven: mvn -B -P installers -DskipTests verify   (after build-packages.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pkgdir="$here/target/packages"
deb="$(ls "$pkgdir"/arenascope_*.deb 2>/dev/null | head -n 1)"
[ -n "$deb" ] || { echo "test-packages: no .deb in $pkgdir: run build-packages.sh first" >&2; exit 2; }
scratch="$here/target/scratch-root"
work="$here/target/package-test"
rm -rf "$scratch" "$work" && mkdir -p "$scratch" "$work"
fail() { echo "test-packages: FAIL: $*" >&2; exit 1; }
pass() { echo "test-packages: ok: $*"; }

dpkg-deb -x "$deb" "$scratch"
app="$scratch/opt/arenascope"
bin="$app/bin/arenascope"
[ -x "$bin" ] || fail "no launcher at /opt/arenascope/bin/arenascope"
[ -x "$app/lib/runtime/bin/java" ] || fail "no bundled runtime"
pass "unpacked $(basename "$deb") ($(stat -c %s "$deb") bytes)"

# the package's own metadata: dependencies, PATH link, desktop entry, association, icon, man page
control="$(dpkg-deb -f "$deb" Depends)"
grep -q "libgtk-3-0" <<<"$control" || fail "Depends does not name GTK 3: $control"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst | grep -q "ln -sf /opt/arenascope/bin/arenascope /usr/bin/arenascope" \
  || fail "postinst does not put arenascope on PATH"
desktop="$(ls "$app"/lib/*.desktop | head -n 1)"
grep -q "^Exec=" "$desktop" && grep -q "MimeType=application/x-arenascope-trace" "$desktop" \
  || fail "desktop entry lacks Exec or the .astrace association: $(cat "$desktop")"
grep -q 'pattern="\*.astrace"' "$app"/lib/*MimeInfo.xml || fail "no MIME type for *.astrace"
[ -s "$app/lib/arenascope.png" ] || fail "no icon"
zcat "$app/lib/arenascope.1.gz" | grep -q "^.TH ARENASCOPE 1" || fail "no man page"
pass "Depends, PATH link, desktop entry, .astrace association, icon and man page present"

# the CLI on the packaged runtime, from a directory with no JDK on PATH
export PATH="/usr/bin:/bin" JAVA_HOME=""
cd "$work"
"$bin" --version | tee version.txt | grep -q "^arenascope " || fail "--version printed: $(cat version.txt)"
pass "arenascope --version: $(cat version.txt)"
# the ahead-of-time cache: present, named in the launcher's options, and usable from /opt (AOTMode=on,
# through JAVA_TOOL_OPTIONS, which the JVM reads whatever launcher started it,
# makes a cache that does not match the runtime or class path an error instead of silently unused)
[ -s "$app/lib/app/arenascope.aot" ] || fail "no AOT cache in lib/app"
grep -q 'AOTCache=$APPDIR/arenascope.aot' "$app/lib/app/arenascope.cfg" || fail "the launcher does not pass the AOT cache"
printf 'id,lower,upper,size\na,0,2,64\nb,1,3,64\n' > small.csv
JAVA_TOOL_OPTIONS="-XX:AOTMode=on" "$bin" plan --input small.csv > aot.txt 2>&1 || fail "the packaged AOT cache does not load: $(tail -n 3 aot.txt)"
grep -q "proof: optimal" aot.txt || fail "plan with the AOT cache printed: $(cat aot.txt)"
pass "AOT cache $(stat -c %s "$app/lib/app/arenascope.aot") bytes, loads with AOTMode=on"
# the bench command, a module of its own, found on the packaged class path (and its fixtures with it)
"$bin" --help | grep -q "^  bench " || fail "the packaged CLI lists no 'bench' command"
JAVA_TOOL_OPTIONS="-XX:AOTMode=on" "$bin" bench --only arena --quick > bench.txt 2>&1 || fail "bench --only arena --quick failed: $(tail -n 3 bench.txt)"
grep -q "^arena\." bench.txt || fail "bench printed no arena figure: $(tail -n 3 bench.txt)"
pass "bench --only arena --quick: $(grep -c "^arena\." bench.txt) figures"
if "$bin" --help | grep -q "^  record "; then
  "$bin" record render --device host --out "$work/render.astrace" > record.txt 2>&1 || fail "record render failed: $(tail -n 3 record.txt)"
  [ -s "$work/render.astrace" ] || fail "record render wrote no trace"
  pass "record render --device host: $(tail -n 1 record.txt)"
  if "$bin" --help | grep -q "^  report "; then
    "$bin" report "$work/render.astrace" --format html --out "$work/render.html" > report.txt 2>&1 || fail "report failed: $(tail -n 3 report.txt)"
    grep -qi "<html" "$work/render.html" || fail "report wrote no HTML"
    pass "report --format html: $(stat -c %s "$work/render.html") bytes"
    # the SQL engine's native library from the packaged class path: one query over the recording
    "$bin" query "$work/render.astrace" --format csv --sql "SELECT count(*) AS n FROM allocations" > query.txt 2>&1 \
      || fail "query failed: $(tail -n 3 query.txt)"
    [ "$(sed -n 2p query.txt)" -gt 0 ] 2>/dev/null || fail "query printed: $(cat query.txt)"
    pass "query (DuckDB): $(sed -n 2p query.txt) allocations"
  else
    fail "the packaged CLI has no 'report' command"
  fi
else
  fail "the packaged CLI has no 'record' command"
fi

# the window under Xvfb, long enough for a screenshot
if command -v Xvfb >/dev/null && command -v import >/dev/null; then
  display=":$((90 + RANDOM % 9))"
  Xvfb "$display" -screen 0 1440x900x24 >/dev/null 2>&1 & xvfb=$!
  trap 'kill $xvfb 2>/dev/null || true; kill $gui 2>/dev/null || true' EXIT
  sleep 2
  DISPLAY="$display" "$bin" > gui.txt 2>&1 & gui=$!
  sleep "${ARENASCOPE_GUI_WAIT:-12}"
  kill -0 "$gui" 2>/dev/null || fail "the window exited early: $(tail -n 5 gui.txt)"
  DISPLAY="$display" import -window root "$here/target/packaged-window.png"
  kill "$gui" 2>/dev/null || true
  pass "window opened under Xvfb; screenshot at installers/target/packaged-window.png"
else
  echo "test-packages: skipped the window check: install xvfb and imagemagick to run it" >&2
fi
echo "test-packages: all checks passed"
