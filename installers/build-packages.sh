#!/usr/bin/env bash
# Builds ArenaScope's packages from the app module's jars: a jlink-trimmed runtime, a jpackage app image,
# a .deb, an .rpm (when rpmbuild is installed) and a portable .tar.gz, into installers/target/packages.
# Run through Maven: mvn -B -P installers -DskipTests package   (the app module must build first).
set -euo pipefail
version="${1:?usage: build-packages.sh VERSION}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
target="$here/target"
pkgdir="$target/packages"

java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p'; }
find_jdk() {
  local c
  for c in "${ARENASCOPE_JDK:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$c" ] && [ -x "$c/bin/jpackage" ] && [ -x "$c/bin/jlink" ] || continue
    local v; v="$(java_major "$c/bin/java")"
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then echo "$c"; return 0; fi
  done
  return 1
}

# --- the tools, checked first, each named when missing -------------------------------------------
missing=()
JDK="$(find_jdk)" || missing+=("a JDK 25+ with jpackage and jlink (set ARENASCOPE_JDK)")
for t in fakeroot:fakeroot dpkg-deb:dpkg objcopy:binutils gzip:gzip tar:tar; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t%%:*} (apt-get install ${t##*:})")
done
if [ ${#missing[@]} -gt 0 ]; then
  printf 'installers: missing tool: %s\n' "${missing[@]}" >&2
  exit 2
fi
build_rpm=yes
command -v rpmbuild >/dev/null 2>&1 || { build_rpm=no; echo "installers: rpmbuild not found (apt-get install rpm): skipping the .rpm" >&2; }

app_jar="$repo/app/target/arenascope-app.jar"
[ -f "$app_jar" ] || { echo "installers: $app_jar is missing: build the app module first" >&2; exit 2; }
bench_jar="$repo/app-bench/target/arenascope-bench.jar"   # `arenascope bench`, its own module, shipped too
[ -f "$bench_jar" ] || { echo "installers: $bench_jar is missing: build the app-bench module first" >&2; exit 2; }

rm -rf "$target/input" "$target/runtime" "$target/image" "$pkgdir" "$target/work"
mkdir -p "$target/input" "$pkgdir" "$target/work"

# --- the class path: the app jar and its runtime libraries, trimmed -------------------------------
cp "$app_jar" "$bench_jar" "$target/input/"
for j in "$repo"/app/target/lib/*.jar; do
  name="$(basename "$j")"
  case "$name" in
    javafx-*-[0-9]*[0-9].jar) continue ;;      # empty platform-neutral JavaFX jars; the -linux ones hold the code
    jcuda-natives-*.jar)
      # keep only the CUDA runtime, driver and NVRTC bindings; the 24 MB PTX compiler binding is unused
      mkdir -p "$target/work/natives" && (cd "$target/work/natives" && "$JDK/bin/jar" xf "$j")
      rm -f "$target/work/natives"/lib/libJNvPTXCompiler-*.so
      "$JDK/bin/jar" cf "$target/input/$name" -C "$target/work/natives" .
      continue ;;
    duckdb_jdbc-*.jar)
      # the SQL engine (query, convert --to parquet): keep only its Linux x86-64 native library
      # (the jar carries four platforms, 80 MB packed; one is about a quarter of that)
      mkdir -p "$target/work/duckdb" && (cd "$target/work/duckdb" && "$JDK/bin/jar" xf "$j")
      find "$target/work/duckdb" -maxdepth 1 -name 'libduckdb_java.so_*' ! -name 'libduckdb_java.so_linux_amd64' -delete
      "$JDK/bin/jar" cfm "$target/input/$name" "$target/work/duckdb/META-INF/MANIFEST.MF" -C "$target/work/duckdb" .
      continue ;;
    zstd-jni-*.jar)
      # keep only the Linux x86-64 native library of the compressor
      mkdir -p "$target/work/zstd" && (cd "$target/work/zstd" && "$JDK/bin/jar" xf "$j")
      find "$target/work/zstd" -mindepth 1 -maxdepth 1 -type d \( -name linux -o -name META-INF -o -name com \) -prune -o -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
      find "$target/work/zstd/linux" -mindepth 1 -maxdepth 1 -type d ! -name amd64 -exec rm -rf {} +
      "$JDK/bin/jar" cf "$target/input/$name" -C "$target/work/zstd" .
      continue ;;
  esac
  cp "$j" "$target/input/"
done

# --- a trimmed runtime: the modules jdeps finds, plus those used reflectively ---------------------
modules="$("$JDK/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 25 \
  --class-path "$target/input/*" "$target"/input/*.jar 2>/dev/null | tail -n 1)"
modules="$modules,java.logging,java.prefs,java.xml,java.desktop,jdk.management,jdk.unsupported,jdk.crypto.ec"
modules="$(tr , "\n" <<<"$modules" | sort -u | paste -sd, -)"   # once each, whatever jdeps already named
echo "installers: jlink modules: $modules"
"$JDK/bin/jlink" --add-modules "$modules" --strip-java-debug-attributes --strip-native-debug-symbols "objcopy=$(command -v objcopy)" --no-header-files --no-man-pages \
  --compress=zip-6 --output "$target/runtime"

# --- the man page, generated from the CLI's own help so it never drifts ---------------------------
man="$target/work/app-content"
mkdir -p "$man"
cli() { "$target/runtime/bin/java" --enable-native-access=ALL-UNNAMED -cp "$target/input/*" dev.arenascope.app.Main "$@"; }
{
  echo ".TH ARENASCOPE 1 \"$(date +%Y-%m-%d)\" \"ArenaScope $version\" \"User Commands\""
  echo ".SH NAME"
  echo "arenascope \\- visual memory profiler for bump arenas, binned pools and memory plans"
  echo ".SH SYNOPSIS"
  echo ".B arenascope"
  echo "[\\fICOMMAND\\fR [\\fIOPTIONS\\fR]]"
  echo ".SH DESCRIPTION"
  echo "With no command, opens the ArenaScope window on a live demo session. With a command, runs headless."
  echo ".SH COMMANDS"
  echo ".nf"
  cli --help | sed 's/\\/\\\\/g; s/^\./\\\&./'
  for c in $(cli --help | sed -n '/^Commands:/,/^$/p' | awk 'NR>1 && NF {print $1}'); do
    echo
    cli "$c" --help | sed 's/\\/\\\\/g; s/^\./\\\&./'
  done
  echo ".fi"
} > "$man/arenascope.1"
gzip -9nf "$man/arenascope.1"

common=(--name arenascope --app-version "$version" --vendor "ArenaScope"
        --description "Visual memory profiler for bump arenas, binned pools and static memory plans")

# --- app image --------------------------------------------------------------------------------------
"$JDK/bin/jpackage" --type app-image "${common[@]}" --dest "$target/image" \
  --input "$target/input" --main-jar arenascope-app.jar --main-class dev.arenascope.app.Main \
  --runtime-image "$target/runtime" --java-options "--enable-native-access=ALL-UNNAMED" \
  --icon "$here/src/packaging/linux/arenascope.png" --app-content "$man/arenascope.1.gz"

# --- the ahead-of-time cache, trained on the packaged runtime and class path -----------------------
# Like the source build's (app/pom.xml): one `plan` of a small problem, so every command starts with
# its classes already loaded and linked. The cache holds only for this runtime and this class path in
# this order, so it is trained with the app image's own java and the class path its launcher reads from
# arenascope.cfg; a cache that does not match is ignored by the JVM, never an error. The JDK 25 JVM
# accepts the class path's folder moved (the image under /opt after installing), file names equal.
appdir="$target/image/arenascope/lib/app"
cfg="$appdir/arenascope.cfg"
[ -f "$cfg" ] || { echo "installers: no launcher configuration at $cfg" >&2; exit 1; }
cp_train="$(sed -n 's/^app\.classpath=//p' "$cfg" | sed "s|\$APPDIR|$appdir|g" | paste -sd: -)"
[ -n "$cp_train" ] || { echo "installers: $cfg names no app.classpath" >&2; exit 1; }
"$target/image/arenascope/lib/runtime/bin/java" -XX:AOTCacheOutput="$appdir/arenascope.aot" \
  --enable-native-access=ALL-UNNAMED -cp "$cp_train" dev.arenascope.app.Main plan --input "$repo/app/src/aot/plan-small.csv" \
  > "$target/work/aot-training.txt" 2>&1 || { echo "installers: the AOT training run failed:" >&2; tail -n 5 "$target/work/aot-training.txt" >&2; exit 1; }
[ -s "$appdir/arenascope.aot" ] || { echo "installers: the AOT training wrote no cache" >&2; exit 1; }
# the launcher's JVM options: one line per option in [JavaOptions]
sed -i 's|^\(\[JavaOptions\]\)$|\1\njava-options=-XX:AOTCache=$APPDIR/arenascope.aot|' "$cfg"
grep -q 'AOTCache=\$APPDIR/arenascope.aot' "$cfg" || { echo "installers: could not add the AOT cache to $cfg" >&2; exit 1; }
echo "installers: AOT cache $(stat -c %s "$appdir/arenascope.aot") bytes"

pkg_opts=(--app-image "$target/image/arenascope" --dest "$pkgdir" --resource-dir "$here/src/packaging/linux"
          --linux-shortcut --linux-menu-group "Development" --linux-app-category devel
          --file-associations "$here/src/packaging/astrace.properties"
          --icon "$here/src/packaging/linux/arenascope.png" --about-url "https://arenascope.dev")

# --- .deb -------------------------------------------------------------------------------------------
"$JDK/bin/jpackage" --type deb "${common[@]}" "${pkg_opts[@]}" \
  --linux-package-name arenascope --linux-deb-maintainer "dev@arenascope.dev" \
  --linux-package-deps "libgtk-3-0 | libgtk-3-0t64, libxtst6, libgl1"

# --- .rpm -------------------------------------------------------------------------------------------
if [ "$build_rpm" = yes ]; then
  "$JDK/bin/jpackage" --type rpm "${common[@]}" "${pkg_opts[@]}" --linux-package-name arenascope \
    --linux-rpm-license-type "Apache-2.0" --linux-package-deps "gtk3, libXtst, mesa-libGL"
fi

# --- portable .tar.gz: the app image with its desktop entry, icon and man page ------------------------
tarroot="$target/work/tar/arenascope-$version"
mkdir -p "$tarroot"
cp -a "$target/image/arenascope/." "$tarroot/"
cat > "$tarroot/arenascope.desktop" <<DESKTOP
[Desktop Entry]
Name=ArenaScope
Comment=Visual memory profiler for bump arenas, binned pools and static memory plans
Exec=arenascope %f
Icon=arenascope
Terminal=false
Type=Application
Categories=Development;Profiling;
MimeType=application/x-arenascope-trace;
DESKTOP
cat > "$tarroot/INSTALL.txt" <<TXT
ArenaScope $version, portable build for Linux x86-64 (runtime included, no JDK needed).
Run:            ./bin/arenascope            (window)   ./bin/arenascope --help   (CLI)
On PATH:        ln -s "\$PWD/bin/arenascope" ~/.local/bin/arenascope
Desktop menu:   sed "s|^Exec=arenascope|Exec=\$PWD/bin/arenascope|" arenascope.desktop > ~/.local/share/applications/arenascope.desktop
                cp lib/arenascope.png ~/.local/share/icons/arenascope.png
Man page:       man ./lib/arenascope.1.gz
The window needs GTK 3 (libgtk-3-0), libXtst and libGL.
TXT
tar -C "$target/work/tar" -czf "$pkgdir/arenascope-$version-linux-x64.tar.gz" "arenascope-$version"

# --- sizes -------------------------------------------------------------------------------------------
{
  printf '%-48s %12s\n' "artifact" "bytes"
  printf '%-48s %12s\n' "runtime (jlink)" "$(du -sb "$target/runtime" | cut -f1)"
  printf '%-48s %12s\n' "app image (unpacked)" "$(du -sb "$target/image/arenascope" | cut -f1)"
  printf '%-48s %12s\n' "of which the AOT cache" "$(stat -c %s "$target/image/arenascope/lib/app/arenascope.aot")"
  for f in "$pkgdir"/*.deb "$pkgdir"/*.rpm "$pkgdir"/*.tar.gz; do
    [ -f "$f" ] && printf '%-48s %12s\n' "$(basename "$f")" "$(stat -c %s "$f")"
  done
} | tee "$pkgdir/SIZES.txt"
