// Prints .ci/run's closing line, "N passed, N failed, N skipped", from the reports of its two
// vitest runs (.ci-tests/tests.json, snippets.json), each failed test by name with the first
// lines of its message just above it (the record of a run may keep only the end of its output).
// A run that exited non-zero with no failed test (a setup or teardown error, a file that did not
// load) counts as one failure; so does a failed chain (build, type-check, lint, pack check).
// Exits 1 when anything failed.
import fs from "node:fs"
import path from "node:path"

const read = (name) => {
  const file = path.join(".ci-tests", name)
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : undefined
}
const firstLines = (text) => String(text ?? "").split("\n").slice(0, 6).join("\n  ")
let passed = 0
let skipped = 0
let failed = 0
if (Number(read("chain.rc") ?? 1) !== 0) {
  console.log("build, type-check, lint or pack check FAILED: see its log above")
  failed += 1
}
for (const run of ["tests", "snippets"]) {
  const text = read(`${run}.json`)
  const report = text === undefined ? undefined : JSON.parse(text)
  const code = Number(read(`${run}.rc`) ?? 0)
  for (const file of report?.testResults ?? []) {
    const name = path.relative(process.cwd(), file.name)
    if (file.status === "failed" && file.message) {
      console.log(`FAILED ${name} (the file)\n  ${firstLines(file.message)}`)
    }
    for (const test of file.assertionResults) {
      if (test.status === "failed") {
        console.log(`FAILED ${name} > ${test.fullName}\n  ${firstLines(test.failureMessages[0])}`)
      }
    }
  }
  passed += report?.numPassedTests ?? 0
  skipped += (report?.numPendingTests ?? 0) + (report?.numTodoTests ?? 0)
  failed += report?.numFailedTests ?? 0
  if ((report === undefined || code !== 0) && !(report?.numFailedTests > 0)) {
    console.log(`${run}: exit ${code} with no failed test (a setup, teardown or load error): see the log above`)
    failed += 1
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed === 0 ? 0 : 1)
