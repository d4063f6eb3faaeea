/**
 * The session page in the machine's Chromium, served by the page's server in this process (the
 * `acx ui` process is `ui.sessions.browser.test.ts`'s): the server's URL (the one `acx ui` prints)
 * opens the list, the session with subagents opens with a tool call, its result and the nested
 * subagent; a planted hostile transcript (`<script>`, `<img onerror>`, a `javascript:` link) runs
 * nothing; a line appended to the open session's transcript appears on the page; nothing overflows
 * at phone width; every session's header shows the list's figure (subagents included) and follows
 * the transcript as it grows; Claude Code's command markup shows as the command and its output;
 * hostile edits, writes and todos (`<script>`, `</details>`, entities, a lone surrogate, a 5 MB
 * old string, 10 000 todos, a secret) show as bounded, masked diffs and checklists and run
 * nothing.
 */
import * as Fixtures from "@acx/fixtures"
import { removeDir, tempDir, TEST_TIMEOUT_MS } from "@acx/fixtures/acxCli"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  browserAvailable,
  closeClean,
  horizontalOverflow,
  openPage,
  screenshot,
  type ServedPage,
  serveWithBrowser,
  stopWithBrowser
} from "./utils/browser.js"

const HOSTILE_ID = "66666666-6666-4666-8666-666666666666"
const TASK_TOOL = "toolu_01VmaERAwhb19LGUwu9GenaK"

const line = (entry: unknown) => JSON.stringify(entry) + "\n"

const SECRET = "sk-ant-api03-" + "Q".repeat(40)
const STATUSES = ["completed", "in_progress", "pending"] as const

// Tool calls the page shows as a diff, a written file and a checklist, each trying to break out.
const hostileTools = {
  type: "assistant",
  uuid: "h5",
  parentUuid: "h3",
  timestamp: "2026-03-01T10:00:03.000Z",
  sessionId: HOSTILE_ID,
  requestId: "req_h5",
  message: {
    id: "msg_h5",
    model: "claude-sonnet-4-5-20250929",
    role: "assistant",
    content: [
      {
        type: "tool_use",
        id: "toolu_edit",
        name: "Edit",
        input: {
          file_path: "/tmp/<img src=x onerror=window.__pwned=7>.ts",
          old_string: `keep\n</details></pre><script>window.__pwned = 8</script>\nkey = "${SECRET}"`,
          new_string: "keep\n&lt;b&gt; &amp; \ud800 <img src=x onerror=\"window.__pwned = 9\">"
        }
      },
      {
        type: "tool_use",
        id: "toolu_big",
        name: "Edit",
        input: { file_path: "/tmp/big.txt", old_string: "x".repeat(5_000_000), new_string: "small" }
      },
      {
        type: "tool_use",
        id: "toolu_write",
        name: "Write",
        input: { file_path: "/tmp/a.html", content: "<script>window.__pwned = 10</script>\n</details>" }
      },
      {
        type: "tool_use",
        id: "toolu_todos",
        name: "TodoWrite",
        input: {
          todos: Array.from({ length: 10_000 }, (_, i) => ({
            content: i === 0 ? "</li></ul><script>window.__pwned = 11</script>" : `todo ${i}`,
            status: STATUSES[i % 3],
            activeForm: `doing ${i}`
          }))
        }
      }
    ]
  }
}

// Every way a transcript could try to run code in the page: as a prompt, as assistant Markdown,
// as a tool input and result, as the session's title.
const hostileTranscript = () =>
  [
    {
      type: "custom-title",
      customTitle: "<img src=x onerror=\"document.title='pwned'\">hostile",
      sessionId: HOSTILE_ID
    },
    {
      type: "user",
      uuid: "h1",
      timestamp: "2026-03-01T10:00:00.000Z",
      cwd: "/tmp/hostile",
      sessionId: HOSTILE_ID,
      message: { role: "user", content: "<script>window.__pwned = 1; document.title = 'pwned'</script> hello" }
    },
    {
      type: "assistant",
      uuid: "h2",
      parentUuid: "h1",
      timestamp: "2026-03-01T10:00:01.000Z",
      sessionId: HOSTILE_ID,
      requestId: "req_h",
      message: {
        id: "msg_h",
        model: "claude-sonnet-4-5-20250929",
        role: "assistant",
        content: [
          {
            type: "text",
            text: "Reply <script>window.__pwned = 2</script> <img src=x onerror=\"window.__pwned = 3\">\n\n" +
              "[click me](javascript:window.__pwned=4) and [docs](https://example.com/docs) ![pic](https://example.com/p.png)"
          },
          { type: "tool_use", id: "toolu_h", name: "Bash", input: { command: "<img src=x onerror=window.__pwned=5>" } }
        ],
        usage: { input_tokens: 10, output_tokens: 5 }
      }
    },
    {
      type: "user",
      uuid: "h3",
      parentUuid: "h2",
      timestamp: "2026-03-01T10:00:02.000Z",
      sessionId: HOSTILE_ID,
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_h", content: "<script>window.__pwned = 6</script>" }]
      }
    },
    hostileTools
  ].map(line).join("")

describe.skipIf(!browserAvailable)("acx ui: the session page in a browser", () => {
  let dir: string
  let built: Fixtures.BuiltConfigDir
  let hostileFile: string
  let ui: ServedPage
  let browser: Browser

  beforeAll(async () => {
    dir = tempDir("ui-session")
    built = Fixtures.buildClaudeConfigDir(path.join(dir, "claude"))
    hostileFile = path.join(built.configDir, "projects", built.sessions[0]!.projectKey, `${HOSTILE_ID}.jsonl`)
    fs.writeFileSync(hostileFile, hostileTranscript())
    ;({ browser, ui } = await serveWithBrowser(built.configDir, path.join(dir, "home")))
  }, TEST_TIMEOUT_MS)

  afterAll(async () => {
    await stopWithBrowser(ui, browser)
    removeDir(dir)
  })

  it("opens the session with subagents: a tool call, its result and the nested subagent", async () => {
    const { context, errors, foreign, page } = await openPage(browser, ui.origin)
    await page.goto(ui.url)
    const rows = page.locator("table.sessions-table tbody tr")
    await expect.poll(() => rows.count()).toBe(built.sessions.length + 1)
    const session = built.sessions.find((s) => s.subagents.length > 0)!
    await page.locator(`a[href="#/session/${session.sessionId}"]`).click()
    await page.locator(".session-head h1").waitFor()
    await expect.poll(() => page.locator(".resume code").textContent()).toBe(`claude --resume ${session.sessionId}`)
    await page.locator(".session-head").getByRole("button", { name: "Copy" }).click()
    await page.locator(".session-head").getByRole("button", { name: /Copied|Copy failed/ }).waitFor()

    // the memory page's links: ?turn=<tool_use id> opens and highlights that call
    await page.goto(`${ui.origin}/#/session/${session.sessionId}?turn=${TASK_TOOL}`)
    const tool = page.locator(`#tool-${TASK_TOOL}`)
    await tool.locator(".tool-body").getByText("Result", { exact: true }).waitFor()
    expect(await tool.getAttribute("open")).not.toBeNull()
    expect(await tool.getAttribute("class")).toContain("highlight")
    await tool.getByText("Based on the official Claude Code hooks documentation").first().waitFor()
    // the subagent's transcript, nested under the call, loads when opened
    const subagent = tool.locator("details.subagent", { hasText: "a881341" })
    await subagent.locator("summary").click()
    await subagent.locator("article.turn").first().waitFor()
    await subagent.getByText("What is the output contract for Claude Code hooks").first().waitFor()
    await page.setViewportSize({ width: 1280, height: 800 })
    // the turn that holds the call at the top of the window (a string: no DOM library here)
    await page.evaluate(`document.getElementById("tool-${TASK_TOOL}").closest("[data-turn]").scrollIntoView()`)
    await page.evaluate("window.scrollBy(0, -60)")
    await screenshot(page, "session")

    // keyboard: j moves the focus to a turn
    await page.keyboard.press("j")
    expect(await page.evaluate("document.activeElement?.dataset?.turn !== undefined")).toBe(true)

    // at phone width nothing overflows the window sideways
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)

    await closeClean({ context, errors, foreign, page })
  }, TEST_TIMEOUT_MS)

  it("runs nothing a hostile transcript holds, and shows a line appended to it live", async () => {
    const { context, errors, foreign, page } = await openPage(browser, ui.origin)
    await page.goto(ui.url)
    await page.goto(`${ui.origin}/#/session/${HOSTILE_ID}`)
    await page.getByText("click me").waitFor()
    // the payloads are shown as text
    await page.getByText("<script>window.__pwned = 1; document.title = 'pwned'</script> hello").waitFor()
    await page.locator("#tool-toolu_h summary").click()
    await page.getByText("<script>window.__pwned = 6</script>").waitFor()
    expect(await page.evaluate("window.__pwned === undefined")).toBe(true)
    expect(await page.title()).not.toBe("pwned")
    expect(await page.locator(".turns script, .turns img, .session-head img").count()).toBe(0)
    expect(await page.locator("a[href^='javascript:' i]").count()).toBe(0)
    const docs = page.getByRole("link", { name: "docs" })
    expect(await docs.getAttribute("href")).toBe("https://example.com/docs")
    expect(await docs.getAttribute("rel")).toBe("noopener noreferrer")

    // live: a line Claude Code appends shows up without a reload
    await page.locator(".badge.live").waitFor()
    fs.appendFileSync(
      hostileFile,
      line({
        type: "user",
        uuid: "h4",
        parentUuid: "h3",
        timestamp: "2026-03-01T10:01:00.000Z",
        sessionId: HOSTILE_ID,
        message: { role: "user", content: "a prompt appended while the page is open" }
      })
    )
    await page.getByText("a prompt appended while the page is open").waitFor()
    expect(await page.evaluate("window.__pwned === undefined")).toBe(true)

    await closeClean({ context, errors, foreign, page })
  }, TEST_TIMEOUT_MS)

  it("shows edits as diffs and todos as checklists: escaped, masked, bounded, raw input one click away", async () => {
    const { context, errors, foreign, page } = await openPage(browser, ui.origin)
    await page.goto(ui.url)
    await page.goto(`${ui.origin}/#/session/${HOSTILE_ID}`)
    const edit = page.locator("#tool-toolu_edit")
    await edit.locator("summary").first().click()
    // the diff's lines as text: the tags and entities as written, the secret masked
    await edit.locator(".diff-lines .del", { hasText: "</details></pre><script>window.__pwned = 8</script>" }).waitFor()
    await edit.locator(".diff-lines .ins", { hasText: "&lt;b&gt; &amp;" }).waitFor()
    expect(await edit.locator(".diff-lines .ctx").first().textContent()).toBe(" keep\n")
    expect(await edit.locator(".diff-lines .hunk").first().textContent()).toBe("@@ -1,3 +1,2 @@\n")
    await edit.locator(".diff-lines .del", { hasText: "[REDACTED" }).waitFor()
    expect(await page.locator(".turns").textContent()).not.toContain(SECRET.slice(0, 24))
    // the raw input, one click away
    await edit.getByText("Raw input (JSON)").click()
    await edit.locator("details.raw-input pre", { hasText: "\"old_string\"" }).waitFor()

    // 5 MB old string: a line cut, said so
    const big = page.locator("#tool-toolu_big")
    await big.locator("summary").first().click()
    await big.locator(".cut-note", { hasText: "diff cut: 1 lines over 500 characters cut" }).waitFor()
    expect((await big.locator(".diff-lines .del").textContent())!.length).toBeLessThanOrEqual(502)

    const write = page.locator("#tool-toolu_write")
    await write.locator("summary").first().click()
    await write.locator(".write pre", { hasText: "<script>window.__pwned = 10</script>" }).waitFor()
    await write.locator(".write .badge", { hasText: "html" }).waitFor()

    // 10 000 todos: the first 100, the rest counted
    const todos = page.locator("#tool-toolu_todos")
    await todos.locator("summary").first().click()
    await todos.getByText("9900 more todos not shown").waitFor()
    expect(await todos.locator("li.todo").count()).toBe(100)
    expect(await todos.locator("li.todo.in_progress").first().textContent()).toContain("todo 1")
    await todos.locator("li.todo.completed", { hasText: "</li></ul><script>window.__pwned = 11</script>" }).waitFor()
    expect(await todos.locator("summary").first().textContent()).toContain("3334 of 10000 done")

    expect(await page.evaluate("window.__pwned === undefined")).toBe(true)
    expect(await page.locator(".turns script, .turns img").count()).toBe(0)
    // what the page holds is bounded: no 5 MB string in it, and it still answers
    expect(await page.evaluate("document.body.innerHTML.length")).toBeLessThan(500_000)
    await page.keyboard.press("j")
    expect(await page.evaluate("document.activeElement?.dataset?.turn !== undefined")).toBe(true)

    // a real session's edit and checklist (tomjnsn-agentlogs/crud.jsonl)
    const crud = built.sessions.find((s) => s.source.endsWith("crud.jsonl"))!
    await page.goto(`${ui.origin}/#/session/${crud.sessionId}?turn=toolu_0198ui9CWP2HfDM9uYGahBxZ`)
    const fixtureEdit = page.locator("#tool-toolu_0198ui9CWP2HfDM9uYGahBxZ")
    await fixtureEdit.locator(".diff-lines .ins", { hasText: "**Alternative answer:** They prefer" }).waitFor()
    expect(await fixtureEdit.locator(".diff-lines .del").allTextContents()).toEqual([
      "-Because it has too many bugs!\n"
    ])
    const list = page.locator("#tool-toolu_01EkpiWSB9fAakut9agbqLEy")
    await list.locator("summary").first().click()
    expect(await list.locator("li.todo").allTextContents()).toEqual([
      "☑ Create JOKE.md file with a joke, title, and footer",
      "☑ Read the JOKE.md file",
      "◐ Make changes to the JOKE.md file",
      "☐ Delete the JOKE.md file"
    ])
    await page.evaluate(`document.getElementById("tool-toolu_0198ui9CWP2HfDM9uYGahBxZ").scrollIntoView()`)
    await page.evaluate("window.scrollBy(0, -60)")
    await screenshot(page, "session-edit")
    await closeClean({ context, errors, foreign, page })
  }, TEST_TIMEOUT_MS)

  it(
    "heads each session with the list's figure (subagents included), kept live; shows commands as commands",
    async () => {
      const { context, errors, foreign, page } = await openPage(browser, ui.origin)
      await page.goto(ui.url)
      const rows = page.locator("table.sessions-table tbody tr")
      await expect.poll(() => rows.count()).toBe(built.sessions.length + 1)
      // the list's tokens and cost, once its usage has arrived
      await expect.poll(() => page.locator("table.sessions-table td.num", { hasText: "…" }).count()).toBe(0)
      const listed = new Map<string, string>()
      for (const row of await rows.all()) {
        const id = (await row.locator("td.title-cell a").getAttribute("href"))!.replace("#/session/", "")
        const cells = (await row.locator("td.num").allTextContents()).map((text) => text.trim())
        // Messages, Tokens, Cost (its "unusual" badge aside)
        listed.set(id, `${cells[1]} tokens · ${cells[2]!.replace("unusual", "").trim()}`)
      }
      for (const session of [...built.sessions.map((s) => s.sessionId), HOSTILE_ID]) {
        await page.goto(`${ui.origin}/#/session/${session}`)
        const figure = page.locator(".session-head .figure")
        await expect.poll(async () => (await figure.textContent())?.trim()).toBe(listed.get(session))
      }

      // Claude Code's markup: /compact as a command, its output without tags or escapes
      const compact = built.sessions.find((s) => s.source.endsWith("compact.jsonl"))!
      await page.goto(`${ui.origin}/#/session/${compact.sessionId}`)
      await page.locator("code.slash-command", { hasText: "/compact" }).waitFor()
      await page.locator(".command-output", { hasText: "Compacted (ctrl+o to see full summary)" }).waitFor()
      const text = (await page.locator(".turns").textContent())!
      expect(text).not.toMatch(/<\/?(command-name|command-message|local-command-stdout)>|\u001b/)
      expect(await page.locator(".session-head h1").textContent()).toBe("how are you doing")

      // the figure follows the transcript as it grows
      await page.goto(`${ui.origin}/#/session/${HOSTILE_ID}`)
      await page.locator(".badge.live").waitFor()
      const tokens = async () => Number(await page.locator(".session-head .figure").getAttribute("data-tokens"))
      const before = await tokens()
      fs.appendFileSync(
        hostileFile,
        line({
          type: "assistant",
          uuid: "h9",
          parentUuid: "h3",
          timestamp: "2026-03-01T10:02:00.000Z",
          sessionId: HOSTILE_ID,
          requestId: "req_h9",
          message: {
            id: "msg_h9",
            model: "claude-sonnet-4-5-20250929",
            role: "assistant",
            content: [{ type: "text", text: "more" }],
            usage: { input_tokens: 1000, output_tokens: 234 }
          }
        })
      )
      await expect.poll(tokens).toBe(before + 1234)

      await closeClean({ context, errors, foreign, page })
    },
    TEST_TIMEOUT_MS
  )
})
