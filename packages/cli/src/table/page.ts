/**
 * The page and the demo: `ui`, `demo`.
 *
 * @since 0.6.0
 */
import type { CommandSpec } from "../CommandSpec.js"
import { configDir, followSymlinks, json } from "./options.js"

export const ui: CommandSpec = {
  name: "ui",
  description: "Serve the local web page: sessions, costs and memory, on 127.0.0.1 behind a token (prints its URL)",
  options: [
    // 7317 is @acx/ui's UiServer.DEFAULT_PORT
    { name: "port", type: "integer", description: "The port (default 7317, else the next free one; 0: any free port)" },
    {
      name: "host",
      type: "text",
      default: "127.0.0.1",
      description: "The address to listen on (default 127.0.0.1; another one is warned about)"
    },
    configDir,
    {
      name: "from",
      type: "text",
      description:
        "Show a session store instead of the config directory: sqlite:FILE or FILE.db, or postgres://URL[?schema=S] (read only; a missing SQLite file is an error)"
    },
    { name: "open", type: "boolean", description: "Open the page in the default browser" },
    followSymlinks
  ],
  load: () => import("../commands/ui.js").then((m) => m.run)
}

export const demo: CommandSpec = {
  name: "demo",
  description:
    "Run the real Claude Code CLI offline against a local model double (a generated session where no binary is installed, or with --generated), import the session into SQLite, push it into an in-process Acontext, print the results",
  options: [
    {
      name: "dir",
      type: "text",
      description: "Keep the generated config directory and SQLite file here (default: a temp dir, removed)"
    },
    {
      name: "generated",
      type: "boolean",
      description: "Use the generated session even where the real Claude Code CLI is installed"
    },
    {
      name: "thinking",
      type: "boolean",
      description: "Store thinking blocks too (as text; Acontext's default rule leaves them out)"
    },
    json
  ],
  load: () => import("../commands/demo.js").then((m) => m.run)
}
