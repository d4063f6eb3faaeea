#!/usr/bin/env bash
# Runs the real-CLI tests against another Claude Code than the pinned `@anthropic-ai/claude-code`,
# through ACX_CLAUDE_PATH: the platform binary of that version is installed with npm into a cache
# directory outside the repository (once; the package is about 380 MB), its `--version` is
# checked, and the test files run with ACX_CLAUDE_PATH pointing at it. Nothing in the repository
# or its lockfile changes.
#
# Usage: bash scripts/real-claude-pin.sh [VERSION|sdk] [all|TEST FILE…]
#   VERSION     a Claude Code release, e.g. 2.1.330 (the default): the platform package
#               @anthropic-ai/claude-code-<platform>-<arch>@VERSION
#   sdk         the CLI the pinned Claude Agent SDK bundles (what its query() runs by default):
#               @anthropic-ai/claude-agent-sdk-<platform>-<arch>@<the SDK pin>, whose --version
#               must be the SDK's `claudeCodeVersion`
#   all         every test file that starts the real CLI (those naming realClaude, RealClaude,
#               claudeBinary or ClaudeBinary, and the agent's, through its test world), four
#               files a run
#   TEST FILE…  default: the real-CLI smoke tests (hooks, a print-mode session with costs and
#               resume, the MCP connection)
# Environment: ACX_CLAUDE_PIN_DIR (default ${TMPDIR:-/tmp}/acx-claude-code-VERSION) is the
# cache; ACX_PG_URL as for any test run.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:-2.1.330}"
shift || true
tests=("$@")
if [ "${#tests[@]}" -eq 0 ]; then
  tests=(
    packages/claude-code/test/RealClaudeHooks.test.ts
    packages/cli/test/cli.realClaude.test.ts
    packages/cli/test/cli.memory.mcp.test.ts
  )
elif [ "${tests[*]}" = "all" ]; then
  # (the agent's tests start it through their world: test/utils/world.ts)
  mapfile -t tests < <({ grep -lE "realClaude|RealClaude|claudeBinary|ClaudeBinary" packages/*/test/*.test.ts
    grep -lE "utils/world" packages/agent/test/*.test.ts; } | sort -u)
fi

# the platform package the lookup uses: @anthropic-ai/claude-code-<platform>-<arch>, or the SDK's
platform=$(node -p 'process.platform + "-" + process.arch')
if [ "$version" = "sdk" ]; then
  manifest=packages/storage/node_modules/@anthropic-ai/claude-agent-sdk/package.json
  sdk=$(node -p "JSON.parse(require('fs').readFileSync('$manifest', 'utf8')).version")
  version=$(node -p "JSON.parse(require('fs').readFileSync('$manifest', 'utf8')).claudeCodeVersion")
  package="@anthropic-ai/claude-agent-sdk-$platform"
  spec="$package@$sdk"
  echo "real-claude-pin: the CLI of @anthropic-ai/claude-agent-sdk $sdk (Claude Code $version)" >&2
else
  package="@anthropic-ai/claude-code-$platform"
  spec="$package@$version"
fi
dir="${ACX_CLAUDE_PIN_DIR:-${TMPDIR:-/tmp}/acx-claude-code-${spec//\//+}}"
binary="$dir/node_modules/$package/claude"

if [ ! -x "$binary" ]; then
  echo "real-claude-pin: installing $spec into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$spec" >&2
fi
reported=$("$binary" --version)
case "$reported" in
  "$version "*) ;;
  *) echo "real-claude-pin: $binary reports '$reported', not $version" >&2; exit 1 ;;
esac

echo "real-claude-pin: Claude Code $version at $binary" >&2
export ACX_CLAUDE_PATH="$binary"
# four files a run: the real CLI is CPU-heavy
status=0
for ((i = 0; i < ${#tests[@]}; i += 4)); do
  pnpm vitest run "${tests[@]:i:4}" --maxWorkers=2 || status=1
done
exit $status
