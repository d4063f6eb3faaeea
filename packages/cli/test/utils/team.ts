// shared with @acx/ui's tests: one implementation, in @acx/fixtures
export * from "@acx/fixtures/team"
