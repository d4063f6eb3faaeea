import { fileURLToPath } from "node:url"

/** Builds the page's assets once per run: the server under test serves packages/ui/dist/assets. */
export default async function setup(): Promise<void> {
  // CI built them before the tests (two test streams run there at once, and the pack check packs
  // them beside the tests: they must not be rewritten now)
  if (process.env["ACX_UI_PREBUILT"] === "1") return
  const { buildWeb } = (await import(fileURLToPath(new URL("../../build.mjs", import.meta.url)))) as {
    readonly buildWeb: () => Promise<ReadonlyArray<string>>
  }
  await buildWeb()
}
