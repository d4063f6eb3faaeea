#!/usr/bin/env bash
# Runs the real-CLI smoke tests against another Claude Code version than the pinned one (e.g. the
# previous pin, 2.1.330), through ACX_CLAUDE_PATH: the platform binary of that version is
# installed with npm into a cache directory outside the repository (once; the package is about
# 380 MB), its `--version` is checked, and the test files run with ACX_CLAUDE_PATH pointing at it.
# Nothing in the repository or its lockfile changes.
#
# Usage: bash scripts/real-claude-pin.sh [VERSION] [TEST FILE…]
#   VERSION     default 2.1.330
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
fi

# the platform package the lookup uses: @anthropic-ai/claude-code-<platform>-<arch>
platform=$(node -p 'process.platform + "-" + process.arch')
package="@anthropic-ai/claude-code-$platform"
dir="${ACX_CLAUDE_PIN_DIR:-${TMPDIR:-/tmp}/acx-claude-code-$version}"
binary="$dir/node_modules/$package/claude"

if [ ! -x "$binary" ]; then
  echo "real-claude-pin: installing $package@$version into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$package@$version" >&2
fi
reported=$("$binary" --version)
case "$reported" in
  "$version "*) ;;
  *) echo "real-claude-pin: $binary reports '$reported', not $version" >&2; exit 1 ;;
esac

echo "real-claude-pin: Claude Code $version at $binary" >&2
ACX_CLAUDE_PATH="$binary" exec pnpm vitest run "${tests[@]}" --maxWorkers=1
