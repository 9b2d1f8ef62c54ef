#!/usr/bin/env bash
# Checks the arena's CUDA path on a real NVIDIA GPU: an arena of half the free memory, poison and writes
# read back with cudaMemcpy, a forced InsufficientMemoryException that moves nothing, a recording with
# scopes, and the event stream (the program is profiler-core/src/test/.../arena/GpuCheck.java).
#
# The GPU machine has no Java, so the check travels as a self-contained bundle (< 64 MiB):
#   target/gpu-check/runtime/  a jlinked Java runtime (java.base, java.logging, java.management, jdk.management)
#   target/gpu-check/lib/      profiler-core and JCuda jars (JCuda on the class path)
#   target/gpu-check/check/    the GpuCheck program's classes
#   target/gpu-check/native/   only libJCudaRuntime from jcuda-natives (found through -Djava.library.path)
#   target/gpu-check/fallback/ libstdc++/libgcc_s, put on LD_LIBRARY_PATH only where the target lacks them
#
# Usage:
#   scripts/gpu-check.sh build              build the bundle here (needs Maven and the Temurin 25 JDK)
#   scripts/gpu-check.sh run [DEV] [SIZE]   run the bundle (on the GPU machine); DEV cuda|cuda:N|host|virtual,
#                                           SIZE a portion of free memory (default 0.5) or bytes (512MiB)
#   scripts/gpu-check.sh [DEV] [SIZE]       build, then run (here: reports why CUDA is skipped)
# With the project's device tool: build here, then
#   run(command="bash scripts/gpu-check.sh run", carry=["target/gpu-check"], timeout_s=300)
# The report is also written to $OUT/gpu-check.txt when $OUT is set.
# Exit status: 0 all checks passed, 1 a check failed, 2 bad usage or bundle problem, 3 no CUDA device (reason printed).
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
bundle="$root/target/gpu-check"
limit=$((64 * 1024 * 1024))

jdk_home() {
  local c
  for c in "${ARENASCOPE_JDK:-}" "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*25*; do
    if [ -n "$c" ] && [ -x "$c/bin/jlink" ] && "$c/bin/java" -version 2>&1 | grep -q '"2[5-9]'; then echo "$c"; return 0; fi
  done
  return 1
}

build() {
  local jdk; jdk="$(jdk_home)" || { echo "gpu-check: no JDK 25 with jlink found (set ARENASCOPE_JDK)" >&2; exit 2; }
  echo "gpu-check: building profiler-core and the check program ..." >&2
  (cd "$root" && mvn -B -q -Dstyle.color=never -pl profiler-core -DskipTests package) >&2
  local cpfile="$root/target/gpu-check.classpath"
  mkdir -p "$root/target"
  (cd "$root" && mvn -B -q -Dstyle.color=never -pl profiler-core dependency:build-classpath -Dmdep.outputFile="$cpfile") >&2
  local jcuda natives
  jcuda="$(tr ':' '\n' < "$cpfile" | grep -E '/jcuda-[0-9.]+\.jar$' | head -n 1)"
  natives="$(tr ':' '\n' < "$cpfile" | grep -E '/jcuda-natives-[0-9.]+-linux-x86_64\.jar$' | head -n 1)"
  [ -f "$jcuda" ] && [ -f "$natives" ] || { echo "gpu-check: JCuda jars not found in the class path" >&2; exit 2; }

  rm -rf "$bundle"
  mkdir -p "$bundle/lib" "$bundle/check" "$bundle/native" "$bundle/fallback"
  echo "gpu-check: jlink ..." >&2
  "$jdk/bin/jlink" --add-modules java.base,java.logging,java.management,jdk.management \
    --strip-debug --no-header-files --no-man-pages --compress zip-9 --output "$bundle/runtime"
  cp "$root/profiler-core/target/profiler-core-"*.jar "$bundle/lib/"
  rm -f "$bundle/lib/"*-sources.jar "$bundle/lib/"*-tests.jar
  cp "$jcuda" "$bundle/lib/"
  (cd "$root/profiler-core/target/test-classes" && cp --parents dev/arenascope/core/arena/GpuCheck*.class "$bundle/check/")
  local so; so="$(unzip -Z1 "$natives" | grep -E 'libJCudaRuntime-.*\.so$' | head -n 1)"
  unzip -q -j -o "$natives" "$so" -d "$bundle/native"
  local dep
  for dep in libstdc++.so.6 libgcc_s.so.1; do
    local p; p="$(ldconfig -p | awk -v n="$dep" '$1 == n && /x86-64/ { print $NF; exit }')"
    [ -n "$p" ] && cp -L "$p" "$bundle/fallback/$dep"
  done
  cat > "$bundle/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the arena's GPU check with the bundled runtime. Arguments: [DEVICE] [PORTION|BYTES].
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
for dep in libstdc++.so.6 libgcc_s.so.1; do
  if ! ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$dep "; then
    export LD_LIBRARY_PATH="$here/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    break
  fi
done
exec "$here/runtime/bin/java" --enable-native-access=ALL-UNNAMED -Djava.library.path="$here/native" \
  -cp "$here/check:$here/lib/*" dev.arenascope.core.arena.GpuCheck "$@"
RUN
  chmod +x "$bundle/run.sh"
  local size; size="$(du -sb "$bundle" | cut -f1)"
  echo "gpu-check: bundle $bundle is $((size / 1024 / 1024)) MiB ($size bytes)" >&2
  if [ "$size" -ge "$limit" ]; then
    echo "gpu-check: the bundle must stay under 64 MiB" >&2
    exit 2
  fi
}

run() {
  [ -x "$bundle/run.sh" ] || { echo "gpu-check: no bundle at $bundle; run 'scripts/gpu-check.sh build' first" >&2; exit 2; }
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader || true
  fi
  "$bundle/run.sh" "$@"
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  -h|--help) sed -n '2,26p' "$0" ;;
  *) build; run "$@" ;;
esac
