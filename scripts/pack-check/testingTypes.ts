// pack-check step 1: @acx/testing's main entry type-checks where vitest and the Claude Agent SDK
// (optional peers) are not installed, with skipLibCheck off for its declarations
// (typecheck.mjs): they name no optional peer. The vitest suites are @acx/testing/vitest.
import { ModelDouble, prepareStandInCli, startAcontextEmulator, startModelDouble } from "@acx/testing"

export const kits = [prepareStandInCli, startAcontextEmulator, startModelDouble, ModelDouble] as const
