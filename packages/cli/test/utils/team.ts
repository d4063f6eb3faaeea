/**
 * A team's laptops for the origin tests (`stats --by project|machine|user`, the page's machines):
 * a laptop is a config dir with two sessions, one in its clone of a repository (a `.git/config`
 * naming the remote as given) and one in a scratch directory outside any repository.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** A session id from a number. */
export const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

/** Claude Code's project key of a directory. */
export const projectKeyOf = (cwd: string): string => cwd.replace(/[^A-Za-z0-9]/g, "-")

/** A session in `cwd`: one prompt (`text`) and one priced answer of `output` tokens. */
export const transcript = (cwd: string, sessionId: string, text: string, output: number): string =>
  [
    {
      type: "user",
      uuid: `${sessionId}-u`,
      sessionId,
      cwd,
      timestamp: "2026-03-01T10:00:00.000Z",
      message: { role: "user", content: text }
    },
    {
      type: "assistant",
      uuid: `${sessionId}-a`,
      sessionId,
      cwd,
      timestamp: "2026-03-01T10:01:00.000Z",
      requestId: `req_${sessionId}`,
      message: {
        id: `msg_${sessionId}`,
        model: "claude-sonnet-4-5-20250929",
        content: [{ type: "text", text: "done" }],
        usage: { input_tokens: 10, output_tokens: output }
      }
    }
  ].map((entry) => JSON.stringify(entry)).join("\n") + "\n"

/** A laptop under `root/who`: its clone of `remote` at `clone` (session `first`, 100 output tokens), its scratch dir (session `first + 1`, 7). */
export const laptop = (root: string, who: string, clone: string, remote: string, first: number) => {
  const configDir = path.join(root, who, "claude")
  const app = path.join(root, who, clone)
  const scratch = path.join(root, who, "scratch")
  fs.mkdirSync(path.join(app, ".git"), { recursive: true })
  fs.writeFileSync(path.join(app, ".git", "config"), `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${remote}\n`)
  fs.mkdirSync(scratch, { recursive: true })
  for (const [cwd, n, output] of [[app, first, 100], [scratch, first + 1, 7]] as const) {
    const key = projectKeyOf(cwd)
    fs.mkdirSync(path.join(configDir, "projects", key), { recursive: true })
    fs.writeFileSync(
      path.join(configDir, "projects", key, `${uuid(n)}.jsonl`),
      transcript(cwd, uuid(n), `${who} works in ${path.basename(cwd)}`, output)
    )
  }
  return { configDir, app, scratch }
}
