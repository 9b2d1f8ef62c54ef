#!/usr/bin/env bash
# Renders every view of the window into docs/screenshots/*.png (headless: Monocle + the software
# renderer, no display needed). Records the render, inference and particles workloads on the virtual
# device, opens a PyTorch fixture from fixtures/torch, generates an eight-rank job (SyntheticJob, with one
# member that is not a snapshot) for the Ranks view (ranks.png), and snapshots each view with its session.
# The program is app/src/test/java/dev/arenascope/app/ui/Screenshots.java: a tool on the test class
# path, not part of the test suite (mvn verify does not run it). AllocatorWhatIfShot draws the Allocator
# tab's what-if at 1920x1080, so the headless screen is that large (Monocle's own is 1280x800).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mvn -B -q -Dstyle.color=never -pl app -am test -Dtest='Screenshots,SiteScreenshots,AllocatorWhatIfShot' -Dsurefire.failIfNoSpecifiedTests=false \
    -Darenascope.screenshots="$root/docs/screenshots" -Dheadless.geometry=1920x1080-32
ls -1 "$root"/docs/screenshots/*.png
