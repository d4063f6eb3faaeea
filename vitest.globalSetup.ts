import * as Fixtures from "@acx/fixtures"

/** Says once per run why the tests on real-world fixtures are skipped, when they are. */
export default function setup(): void {
  if (!Fixtures.available) console.warn(`\n[acx] tests on real-world fixtures ${Fixtures.skipReason}\n`)
}
