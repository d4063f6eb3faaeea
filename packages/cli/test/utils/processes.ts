/** Removing a test's directory once the processes writing in it are gone (from @acx/fixtures). */
export { processesUnder, removeTreeWhenIdle } from "@acx/fixtures/treeRemoval"
