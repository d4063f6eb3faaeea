// Every `npm install` line of the docs, run as written against the packed tarballs.
//
// The lines are read from README.md, docs/*.md and packages/*/README.md: in a ```bash / ```sh
// block (a line continued with `\` is one line; `a && b` or `a; b` are separate commands, only
// the `npm install` / `npm i` ones run), and in inline code (`npm install …`). The commands of
// one block run in order in one project (a block installs a package, then its driver); an inline
// one runs in a project of its own. A block or line that must not run says so on the line before
// it, with the reason: `<!-- install-check: skip — reason -->`.
//
// Each line must pin the versions that work: every package not of the @acx scope names a
// version, and a peer of an acx package names exactly its peer range or the version the
// repository pins and is tested with (a bare `effect` is npm's `latest`, Effect 4).
//
// Usage:
//   node docInstalls.mjs REPO                      lists the lines (a JSON array), or fails naming
//                                                  each line that is not pinned
//   node docInstalls.mjs REPO --run WORK REGISTRY  runs them: each project in WORK/docs-N, the
//                                                  @acx scope from REGISTRY (pack-check's registry
//                                                  of the tarballs), the rest from npm; a global
//                                                  install (-g) goes to the project's own prefix
//   … --run WORK REGISTRY --ran LINE               a group that is LINE alone is not run again:
//                                                  pack-check's readme check runs the README's
//                                                  app-user line as written in an empty project
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const repo = path.resolve(process.argv[2] ?? ".")
const SKIP = /<!--\s*install-check:\s*skip\b[^>]*-->/

/** The Markdown files whose install lines users copy. */
const docFiles = () => [
  "README.md",
  ...fs.readdirSync(path.join(repo, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`),
  ...fs.readdirSync(path.join(repo, "packages"))
    .map((name) => `packages/${name}/README.md`)
    .filter((file) => fs.existsSync(path.join(repo, file)))
]

/** The `npm install` commands of a shell line (after `$ `, before a `#` comment). */
const installCommands = (line) =>
  line.replace(/^\s*\$\s+/, "").replace(/\s+#.*$/, "").split(/&&|;/).map((part) => part.trim())
    .filter((part) => /^npm (install|i)(\s|$)/.test(part))

/** Whether the nearest non-blank line before `index` is a skip marker. */
const skipped = (lines, index) => {
  for (let i = index - 1; i >= 0; i--) {
    if (lines[i].trim() === "") continue
    return SKIP.test(lines[i])
  }
  return false
}

/** The install groups of one file: `{ where, commands }`, in order. */
const groupsOf = (file) => {
  const lines = fs.readFileSync(path.join(repo, file), "utf8").split("\n")
  const groups = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*```(\w*)/.exec(lines[i])
    if (fence !== null) {
      const start = i
      const shell = ["bash", "sh", "shell", "console"].includes(fence[1])
      const commands = []
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) {
        let line = lines[i]
        while (line.endsWith("\\") && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i].trim()}`
        if (shell) commands.push(...installCommands(line))
      }
      if (commands.length > 0 && !skipped(lines, start)) groups.push({ where: `${file}:${start + 1}`, commands })
      continue
    }
    for (const match of lines[i].matchAll(/`(npm (?:install|i) [^`]+)`/g)) {
      if (!skipped(lines, i)) groups.push({ where: `${file}:${i + 1}`, commands: [match[1].trim()] })
    }
  }
  return groups
}

/** What the workspace says a package's version must be: its peer ranges and its pinned versions. */
const workspaceVersions = () => {
  const peers = new Map()
  const pinned = new Map()
  const add = (map, name, range) => {
    if (range.startsWith("workspace:")) return
    map.set(name, new Set([...(map.get(name) ?? []), range]))
  }
  const manifests = [
    "package.json",
    ...fs.readdirSync(path.join(repo, "packages")).map((name) => `packages/${name}/package.json`)
  ].filter((file) => fs.existsSync(path.join(repo, file)))
  for (const file of manifests) {
    const manifest = JSON.parse(fs.readFileSync(path.join(repo, file), "utf8"))
    for (const [name, range] of Object.entries(manifest.peerDependencies ?? {})) add(peers, name, range)
    for (const field of ["dependencies", "devDependencies"]) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) add(pinned, name, range)
    }
    if (typeof manifest.packageManager === "string") {
      const [name, version] = manifest.packageManager.split("@")
      add(pinned, name, version)
    }
  }
  return { peers, pinned }
}

/** The package specs of an install command (its options and their values left out). */
const specsOf = (command) => {
  const words = command.split(/\s+/).slice(2)
  const specs = []
  for (let i = 0; i < words.length; i++) {
    if (["--prefix", "--registry", "--tag", "--omit", "--include"].includes(words[i])) i++
    else if (!words[i].startsWith("-")) specs.push(words[i].replace(/^["']|["']$/g, ""))
  }
  return specs
}

/** What is wrong with a command's versions, one message per spec. */
const unpinned = (command, { peers, pinned }) =>
  specsOf(command).flatMap((spec) => {
    const at = spec.indexOf("@", 1)
    const name = at < 0 ? spec : spec.slice(0, at)
    const range = at < 0 ? undefined : spec.slice(at + 1)
    if (name.startsWith("@acx/")) return []
    if (range === undefined) return [`${name} names no version`]
    const peerRanges = peers.get(name)
    if (peerRanges === undefined) return []
    const allowed = new Set([...peerRanges, ...(pinned.get(name) ?? [])])
    return allowed.has(range) ? [] : [`${spec}: acx is built and tested with ${name}@${[...allowed].join(" or ")}`]
  })

/** Runs `command` with bash in `cwd`; resolves to its exit code and output. */
const sh = (command, cwd, env) =>
  new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", (code) => resolve({ code, output }))
  })

/** Runs one group in a new project under `work`; resolves to a line saying how it went. */
const runGroup = async (group, dir, registry) => {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "docs-install", private: true, type: "module" })
  )
  fs.writeFileSync(path.join(dir, ".npmrc"), `@acx:registry=${registry}\n`)
  // npm's settings by environment, so the lines run as written (no optional packages: the SDK's
  // and Claude Code's would bring a 360 MB binary)
  const env = {
    npm_config_omit: "optional",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_loglevel: "error",
    npm_config_prefer_offline: "true"
  }
  for (const command of group.commands) {
    // a global install (-g) reads no project .npmrc: the project's .npmrc is its user config
    // then (the @acx scope), and its prefix the project's own
    const global = /\s(-g|--global)(\s|$)/.test(command)
    const result = await sh(
      command,
      dir,
      global
        ? { ...env, npm_config_prefix: path.join(dir, "global"), npm_config_userconfig: path.join(dir, ".npmrc") }
        : env
    )
    if (result.code !== 0) {
      return {
        ok: false,
        text: `FAILED ${group.where}: ${command}\n${result.output.trim().split("\n").slice(-25).join("\n")}`
      }
    }
  }
  return { ok: true, text: `ok ${group.where}: ${group.commands.join(" ; ")}` }
}

const versions = workspaceVersions()
const groups = docFiles().flatMap(groupsOf)
const problems = groups.flatMap((group) =>
  group.commands.flatMap((command) =>
    unpinned(command, versions).map((problem) => `${group.where}: ${command}: ${problem}`)
  )
)
if (problems.length > 0) {
  for (const problem of problems) console.error(`install line not pinned: ${problem}`)
  process.exit(1)
}

const runAt = process.argv.indexOf("--run")
if (runAt < 0) {
  console.log(JSON.stringify(groups, null, 2))
} else {
  const work = path.resolve(process.argv[runAt + 1])
  const registry = process.argv[runAt + 2]
  // one project per distinct group (the same line in two READMEs runs once), two at a time
  const ranAt = process.argv.indexOf("--ran")
  const ran = ranAt < 0 ? undefined : process.argv[ranAt + 1]
  const distinct = [...new Map(groups.map((group) => [group.commands.join("\n"), group])).values()]
    .filter((group) => group.commands.join("\n") !== ran)
  const results = new Array(distinct.length)
  let next = 0
  const worker = async () => {
    while (next < distinct.length) {
      const index = next++
      results[index] = await runGroup(distinct[index], path.join(work, `docs-${index}`), registry)
    }
  }
  await Promise.all([worker(), worker()])
  for (const result of results) console.log(result.text)
  if (ran !== undefined) console.log(`not run again (the readme check runs it as written): ${ran}`)
  console.log(
    `${distinct.length} install groups from the docs, ${results.filter((result) => !result.ok).length} failed`
  )
  if (results.some((result) => !result.ok)) process.exit(1)
}
