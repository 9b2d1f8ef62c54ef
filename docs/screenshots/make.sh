#!/usr/bin/env bash
# Renders every view of the window into docs/screenshots/*.png (headless: Monocle + the software
# renderer, no display needed). Records the render, inference and particles workloads on the virtual
# device, opens a PyTorch fixture from ../shared, and snapshots each view with its session.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mvn -B -q -Dstyle.color=never -pl app -am test -Dtest=ScreenshotsTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Darenascope.screenshots="$root/docs/screenshots"
ls -1 "$root"/docs/screenshots/*.png
