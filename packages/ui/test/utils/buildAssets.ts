import { fileURLToPath } from "node:url"

/** Builds the page's assets once per run: the server under test serves packages/ui/dist/assets. */
export default async function setup(): Promise<void> {
  const { buildWeb } = (await import(fileURLToPath(new URL("../../build.mjs", import.meta.url)))) as {
    readonly buildWeb: () => Promise<ReadonlyArray<string>>
  }
  await buildWeb()
}
