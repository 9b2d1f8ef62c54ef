#!/usr/bin/env bash
# Renders an HTML report to a PNG with headless Chromium (no network, a fresh profile), the way the
# README's picture is made:
#   scripts/report-screenshot.sh REPORT.html OUT.png [WIDTH HEIGHT]
# e.g. ./arenascope report fixtures/torch/cs336-a2-magma27.pickle \
#          --baseline fixtures/torch/cs336-a2-bcrafton.pickle --out /tmp/r.html --force
#      scripts/report-screenshot.sh /tmp/r.html docs/report.png 1280 1180
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 REPORT.html OUT.png [WIDTH HEIGHT]" >&2; exit 2; }
html="$(readlink -f "$1")"
out="$(readlink -f "$(dirname "$2")")/$(basename "$2")"
width="${3:-1280}"
height="${4:-1600}"
chrome="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
[ -n "$chrome" ] || { echo "$0: no Chromium found (apt-get install -y chromium)" >&2; exit 2; }
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
"$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --hide-scrollbars --user-data-dir="$profile" \
  --window-size="$width,$height" --screenshot="$out" "file://$html" 2>/dev/null
echo "wrote $out"
