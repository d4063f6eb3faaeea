/**
 * Runs once before all test projects. Nothing needs preparing today: the real-world fixtures
 * live in the repository (`packages/fixtures/data`), so no test waits on or skips for them.
 * Kept (and referenced from `vitest.config.ts`) as the place for run-wide setup such as
 * starting a shared database.
 */
export default function setup(): void {}
