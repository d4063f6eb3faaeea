// pack-check steps 1 and 2: a file (types.ts unless named) type-checks against the installed
// declarations, under one module resolution (node16 or bundler, the first argument). Run in the project that installed every tarball
// and typescript, as `tsc --noEmit --strict` would: types.ts and every declaration file of the
// installed @acx packages are checked in full (skipLibCheck off for them: a .d.ts naming a
// package it does not depend on, or a type it does not export, fails here). The other packages'
// declarations (Effect, zod, the MCP SDK, DOM's lib…) are read but not checked themselves: they
// are not ours, and checking them was nine tenths of the time (measured: 21 against 8 CPU-seconds
// a resolution; docs/testing.md, "CI").
import ts from "typescript"

const resolution = process.argv[2]
const file = process.argv[3] ?? "types.ts"
if (resolution !== "node16" && resolution !== "bundler") {
  console.error("usage: node typecheck.mjs node16|bundler [FILE]")
  process.exit(2)
}
const options = {
  noEmit: true,
  strict: true,
  skipLibCheck: false,
  types: ["node"],
  target: ts.ScriptTarget.ES2022,
  module: resolution === "bundler" ? ts.ModuleKind.ESNext : ts.ModuleKind.Node16,
  moduleResolution: resolution === "bundler" ? ts.ModuleResolutionKind.Bundler : ts.ModuleResolutionKind.Node16
}
const program = ts.createProgram([file], options)
// ours: the file itself and what the @acx tarballs installed (node_modules/@acx/…, also nested)
const ours = (file) => !file.fileName.includes("/node_modules/") || file.fileName.includes("/node_modules/@acx/")
const checked = program.getSourceFiles().filter(ours)
const acx = checked.filter((file) => file.fileName.includes("/node_modules/@acx/"))
if (acx.length === 0) {
  console.error("typecheck: no declaration file of an installed @acx package was read")
  process.exit(1)
}
const diagnostics = [
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
  ...checked.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])
]
const host = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => process.cwd(),
  getNewLine: () => "\n"
}
if (diagnostics.length > 0) {
  console.error(ts.formatDiagnostics(diagnostics, host))
  process.exit(1)
}
console.log(`${file} and ${acx.length} declaration files of @acx packages type-check (${resolution})`)
