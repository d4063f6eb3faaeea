#!/usr/bin/env bash
# Proves the packages install and work as a user gets them: builds, packs every public package
# with `pnpm pack`, installs the tarballs with plain npm (no pnpm, no workspace links) into empty
# directories outside the workspace, and checks, each in its own directory and all at once (each
# check's log is printed in order when all are done):
#   0. readme:   the README's app-user install line, run exactly as written there (read from
#                README.md) in an empty project, the @acx scope served from the tarballs by a
#                registry on 127.0.0.1 and everything else from the npm registry: npm resolves the
#                Effect 3 line, @acx/storage imports; there, 4. below; then the README's SDK line,
#                without ERESOLVE;
#   1. runtime:  a plain Node script imports @acx/storage/promise and @acx/testing where vitest is
#                not installed, saves a conversation into the emulator, reads it back, and runs the
#                stand-in Claude Code CLI from the installed @acx/testing; there, a .ts file using
#                @acx/testing type-checks with skipLibCheck off (its declarations name no
#                optional peer: vitest and the SDK are not installed);
#   2. types:    a .ts file using the Effect API of @acx/storage and @acx/session-store type-checks
#                against the installed .d.ts (moduleResolution node16 and bundler);
#   3. cli:      `npx acx demo` from the packed @acx/cli, and `acx stats` in worker threads from
#                the installed @acx/cli and @acx/claude-code (their worker scripts ship); `npx acx
#                ui` and @acx/ui as a library serve their built page (the assets ship);
#   4. minimal:  a project that installs only @acx/storage and its required peers (the README's
#                app-user line, in 0.'s project before its SDK line: one install fewer) has no pg,
#                better-sqlite3, vitest or Claude Agent SDK, and both entry points import.
#   5. prepack:  in a copy of the repository's files without any dist/ (a fresh clone), `npm pack`
#                and `pnpm pack` build first: the tarballs hold dist/.
#   6. docs:     every `npm install` line of README.md, docs/ and the packages' READMEs, run as
#                written, each block in an empty project, the @acx scope served from the tarballs
#                (pack-check/docInstalls.mjs: a line that names an unpinned version, or that npm
#                cannot install, fails here; the README's app-user line is 0.'s, not run twice);
# Usage: bash scripts/pack-check.sh [--keep] [--no-build] [--only=readme|prepack|docs]: --only runs
# that check alone (0. with 4., 5. or 6.); --keep keeps the work directory and
# prints where it is; --no-build packs what `pnpm build` already made, its prepack scripts not run
# (CI builds first, then runs this beside the tests, which must not see their files rewritten).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
checks="$repo/scripts/pack-check"

keep=0
build=1
only=""
for arg in "$@"; do
  case "$arg" in
    --keep) keep=1 ;;
    --no-build) build=0 ;;
    --only=readme | --only=prepack | --only=docs) only=${arg#--only=} ;;
    *) echo "pack-check: unknown option $arg" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/acx-pack-check.XXXXXX")
# (removing the installed projects took 37–86 s on the loaded machine: it goes on after the script
# has answered, in the background, and ends by itself)
cleanup() { if [ "$keep" = 1 ]; then echo "pack-check: kept $work"; else rm -rf "$work" & fi; }
trap cleanup EXIT

step() { echo "== pack-check: $* (+$SECONDS s)"; }
fail() { echo "pack-check: FAILED: $*" >&2; exit 1; }

# The versions the workspace itself resolves, so the check installs what the repo was tested with.
version_of() { node -p "require('$repo/packages/$1/package.json').$2['$3']"; }
EFFECT=$(version_of storage devDependencies effect)
PLATFORM=$(version_of storage devDependencies @effect/platform)
PLATFORM_NODE=$(version_of testing devDependencies @effect/platform-node)
SQL=$(version_of session-store devDependencies @effect/sql)
EXPERIMENTAL=$(version_of session-store devDependencies @effect/experimental)
SQLITE=$(version_of session-store devDependencies @effect/sql-sqlite-node)
SQL_PG=$(version_of session-store devDependencies @effect/sql-pg)
SDK=$(version_of session-store devDependencies @anthropic-ai/claude-agent-sdk)
TYPESCRIPT=$(node -p "require('$repo/package.json').devDependencies.typescript")
TYPES_NODE=$(node -p "require('$repo/package.json').devDependencies['@types/node']")

if [ "$build" = 1 ]; then
  step "build"
  pnpm -s build
fi

step "pack"
mkdir -p "$work/tarballs"
# (--no-build: the prepack scripts are not run either; they would rebuild what the tests use.)
# One pnpm packs them all (`pnpm -r pack`): a pnpm started per package cost 11 CPU-seconds
# against 2, the same tarballs.
ignore_scripts=$([ "$build" = 1 ] && echo false || echo true)
npm_config_ignore_scripts=$ignore_scripts pnpm -r --filter "./packages/*" --filter "!@acx/fixtures" \
  pack --pack-destination "$work/tarballs" >/dev/null
tgz() { ls "$work"/tarballs/acx-"$1"-*.tgz; }
ls -1 "$work/tarballs"

# better-sqlite3's install script fetches its prebuilt binary from GitHub and compiles SQLite
# from source when it cannot (a machine without GitHub: measured, that compile was most of the
# full project's install, minutes of CPU). The binary the workspace's install already has is
# offered as that download, named as prebuild-install looks for it (its version, Node's ABI,
# platform and arch): the same version's binary for the same Node is what the download gives.
# An install that resolves another version finds no file of its name and compiles as before.
# (Set on the installs alone: npm warns about a setting it does not know wherever it sees one.)
prebuilds="$work/prebuilds"
local_prebuilds=""
mkdir -p "$prebuilds"
sqlite_dir=$(cd "$repo/packages/session-store" && node -p "require('node:path').dirname(require.resolve('better-sqlite3/package.json'))")
if [ -f "$sqlite_dir/build/Release/better_sqlite3.node" ]; then
  sqlite_version=$(node -p "require('$sqlite_dir/package.json').version")
  libc=$(node -p "process.report.getReport().header.glibcVersionRuntime ? '' : 'musl'")
  tar -czf "$prebuilds/better-sqlite3-v$sqlite_version-node-v$(node -p process.versions.modules)-$(node -p process.platform)$libc-$(node -p process.arch).tar.gz" \
    -C "$sqlite_dir" build/Release/better_sqlite3.node
  local_prebuilds=$prebuilds
fi

# An empty npm project outside the workspace; `npm install` there with the given specs. Optional
# dependencies are left out: none is needed here, and the SDK's would bring its 360 MB binary.
# --prefer-offline: the three projects share most packages; what an earlier install cached is not
# asked for again (the full project's install was most of this script's time).
# (its package.json written here, as docInstalls.mjs does: `npm init` and `npm pkg` are an npm
# start each, a CPU-second apiece on the loaded machine)
empty_project() { mkdir -p "$1" && echo '{ "name": "pack-check", "private": true, "type": "module" }' >"$1/package.json"; }
project() {
  local dir="$work/$1"
  shift
  empty_project "$dir"
  (cd "$dir" && npm_config_better_sqlite3_local_prebuilds=$local_prebuilds npm install --no-audit --no-fund --prefer-offline --loglevel=error --omit=optional "$@" >/dev/null)
  echo "$dir"
}
absent() { # dir package…: fails when npm ls finds any of the packages (one npm ls for them all:
  # it exits 0 when it finds one of those named, 1 when none)
  local dir=$1
  shift
  if (cd "$dir" && npm ls --all "$@" >/dev/null 2>&1); then
    (cd "$dir" && npm ls --all "$@") >&2
    fail "one of $* is installed in $(basename "$dir")"
  fi
}

# Each check below works in its own directory on the same tarballs, so they run at once: most of
# their time is npm installing (one after another they took 923 s on the loaded 2-core machine; at
# once 678 s, 2026-11-27, most of it the full project's install: docs/testing.md, "CI"). Each
# writes its own log, printed in order when all are done. (npm's cache is safe to share between
# concurrent installs.)
check_readme() {
step "0. readme: the README's install line, as written, then the SDK's"
readme_lines=$(node "$checks/readmeInstall.mjs" "$repo/README.md" "$repo/packages/storage/package.json") \
  || fail "the README's install line"
app_line=$(sed -n 1p <<<"$readme_lines")
sdk_line=$(sed -n 2p <<<"$readme_lines")
echo "README: $app_line"
echo "README: $sdk_line"
readme="$work/readme"
empty_project "$readme"
echo "@acx:registry=$(cat "$work/registry.url")" >"$readme/.npmrc"
# npm's settings by environment, so the lines themselves run as written (no optional packages:
# the SDK's would bring its 360 MB binary)
readme_npm() {
  (cd "$readme" && npm_config_omit=optional npm_config_audit=false npm_config_fund=false \
    npm_config_loglevel=error npm_config_prefer_offline=true npm_config_better_sqlite3_local_prebuilds=$local_prebuilds \
    bash -c "$1") >"$work/readme.npm.log" 2>&1 \
    || { cat "$work/readme.npm.log" >&2; fail "$2"; }
}
readme_npm "$app_line" "the README's install line: $app_line"
cp "$checks/readme.mjs" "$readme/"
(cd "$readme" && node readme.mjs) || fail "@acx/storage on the README's install line"
step "4. minimal: the README's app-user line installs @acx/storage and its required peers only"
absent "$readme" pg better-sqlite3 vitest @anthropic-ai/claude-agent-sdk
cp "$checks/minimal.mjs" "$readme/"
(cd "$readme" && node minimal.mjs) || fail "minimal: @acx/storage on the README's install line alone"
readme_npm "$sdk_line" "the README's SDK line after its install line: $sdk_line"
(cd "$readme" && node readme.mjs --sdk) || fail "@acx/storage beside the SDK"
(cd "$readme" && npm ls --all >/dev/null) || { (cd "$readme" && npm ls --all) >&2; fail "npm ls: an invalid tree"; }
}

check_docs() {
step "6. docs: every npm install line of the docs, as written"
# (the README's app-user line, when 0. runs it as written in an empty project, is not run twice)
ran=()
[[ " ${wanted_checks[*]} " != *" readme "* ]] || ran=(--ran "$(node "$checks/readmeInstall.mjs" "$repo/README.md" | sed -n 1p)")
npm_config_better_sqlite3_local_prebuilds=$local_prebuilds \
  node "$checks/docInstalls.mjs" "$repo" --run "$work/docs" "$(cat "$work/registry.url")" "${ran[@]}" \
  || fail "the docs' install lines"
}

check_runtime() {
step "1. runtime: storage + testing without vitest"
runtime=$(project runtime "$(tgz storage)" "$(tgz schema)" "$(tgz convert)" "$(tgz environment)" "$(tgz testing)" \
  "effect@$EFFECT" "@effect/platform@$PLATFORM" "@effect/platform-node@$PLATFORM_NODE" \
  "typescript@$TYPESCRIPT" "@types/node@$TYPES_NODE")
absent "$runtime" vitest @vitest/runner @anthropic-ai/claude-agent-sdk
cp "$checks/runtime.mjs" "$checks/testingTypes.ts" "$checks/typecheck.mjs" "$runtime/"
(cd "$runtime" && node runtime.mjs)
for resolution in node16 bundler; do
  (cd "$runtime" && node typecheck.mjs "$resolution" testingTypes.ts) \
    || fail "@acx/testing's declarations without vitest (skipLibCheck off, $resolution)"
done
}

check_full() {
step "2. types and 3. cli: every package, every optional peer"
full=$(project full "$work"/tarballs/*.tgz \
  "effect@$EFFECT" "@effect/platform@$PLATFORM" "@effect/platform-node@$PLATFORM_NODE" "@effect/sql@$SQL" \
  "@effect/experimental@$EXPERIMENTAL" "@effect/sql-sqlite-node@$SQLITE" "@effect/sql-pg@$SQL_PG" \
  "@anthropic-ai/claude-agent-sdk@$SDK" "typescript@$TYPESCRIPT" "@types/node@$TYPES_NODE")
cp "$checks/types.ts" "$checks/typecheck.mjs" "$checks/stats.mjs" "$checks/ui.mjs" "$full/"
# the two type-checks and the CLI's runs only read the installed project: at once too. (Each is
# `tsc --noEmit --strict` through the installed typescript's API, with the @acx declarations
# checked in full and the other packages' declarations only read: typecheck.mjs says why.)
for resolution in node16 bundler; do
  (
    (cd "$full" && node typecheck.mjs "$resolution") || fail "types.ts under moduleResolution $resolution"
    step "2. types.ts type-checks under moduleResolution $resolution"
  ) >"$work/types-$resolution.log" 2>&1 &
done
step "3. cli: acx stats in worker threads, acx ui, npx acx demo"
cli_status=0
(
  (cd "$full" && node stats.mjs) || fail "acx stats in worker threads (library and npx acx)"
  (cd "$full" && node ui.mjs) || fail "acx ui and @acx/ui serve their built assets"
  (cd "$full" && npx acx demo >demo.out) || { cat "$full/demo.out" >&2; fail "npx acx demo"; }
  grep -q "Acontext" "$full/demo.out" || fail "npx acx demo printed no Acontext step"
  echo "npx acx demo: $(wc -l <"$full/demo.out") lines"
) || cli_status=$?
wait # (the type-checks: each log says whether it passed)
cat "$work/types-node16.log" "$work/types-bundler.log"
grep -q "type-checks under moduleResolution node16" "$work/types-node16.log" || fail "types.ts under moduleResolution node16"
grep -q "type-checks under moduleResolution bundler" "$work/types-bundler.log" || fail "types.ts under moduleResolution bundler"
[ "$cli_status" -eq 0 ] || fail "the CLI's checks"
}

check_prepack() {
step "5. prepack: npm pack and pnpm pack in a fresh copy (no dist/) build first"
fresh="$work/fresh"
mkdir -p "$fresh"
# the repository's files as a clone has them: tracked and new, nothing ignored (no dist/, no
# .tsbuildinfo, no node_modules)
(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$fresh")
[ ! -e "$fresh/packages/storage/dist" ] || fail "the fresh copy has a dist/"
(cd "$fresh" && { pnpm install --frozen-lockfile --offline >/dev/null 2>&1 || pnpm install --frozen-lockfile >/dev/null; })
mkdir -p "$work/fresh-tarballs"
(cd "$fresh/packages/schema" && npm pack --silent --pack-destination "$work/fresh-tarballs" >/dev/null)
(cd "$fresh/packages/storage" && pnpm pack --pack-destination "$work/fresh-tarballs" >/dev/null)
(cd "$fresh/packages/cli" && pnpm pack --pack-destination "$work/fresh-tarballs" >/dev/null)
for wanted in schema:package/dist/index.js storage:package/dist/promise.js cli:package/dist/acx.mjs \
  cli:package/dist/assets/index.html; do
  tarball=$(ls "$work"/fresh-tarballs/acx-"${wanted%%:*}"-*.tgz)
  # (the listing first: grep -q stops reading early, and pipefail would count tar's SIGPIPE)
  listing=$(tar -tzf "$tarball")
  grep -qx "${wanted#*:}" <<<"$listing" || fail "$(basename "$tarball") packed without a build: no ${wanted#*:}"
  echo "$(basename "$tarball"): ${wanted#*:}"
done
}

# with --only=STEP, the other checks are left out
case "$only" in
  readme) wanted_checks=(readme) ;;
  prepack) wanted_checks=(prepack) ;;
  docs) wanted_checks=(docs) ;;
  *) wanted_checks=(readme runtime full prepack docs) ;;
esac
# The @acx scope's registry for the checks that run the docs' lines as written (readme, docs): it
# serves until its stdin closes (fd 3, held by this shell and the checks, closed when all are done)
if [[ " ${wanted_checks[*]} " == *" readme "* || " ${wanted_checks[*]} " == *" docs "* ]]; then
  exec 3> >(node "$checks/registry.mjs" "$work/tarballs" >"$work/registry.url")
  for _ in $(seq 1 100); do [ -s "$work/registry.url" ] && break; sleep 0.1; done
  [ -s "$work/registry.url" ] || fail "the local registry for the @acx tarballs did not start"
fi
pids=()
for name in "${wanted_checks[@]}"; do
  # (a subshell: a check's `fail` ends that check alone; its log is printed below)
  (set -e; "check_$name"; step "$name: done") >"$work/$name.log" 2>&1 &
  pids+=($!)
done
failed=()
for i in "${!wanted_checks[@]}"; do
  name=${wanted_checks[$i]}
  wait "${pids[$i]}" || failed+=("$name")
  cat "$work/$name.log"
done
exec 3>&-
[ "${#failed[@]}" -eq 0 ] || fail "${failed[*]}"

step "passed"
