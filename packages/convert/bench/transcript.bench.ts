/**
 * `pnpm bench` for transcript reading: parse (every line read with `TranscriptLine.decodeLine`:
 * `JSON.parse` and the entry envelope check, leniently) + reconstruct (the full conversation
 * across compactions) of the 2.7 MB spotter transcript, in MB/s, against a baseline measured in
 * the same run: split the text into lines and `JSON.parse` each (the least any reader does).
 * Target: ≥ 0.5× the baseline. A last line times the deep check (`decodeLineStrict`) for scale.
 */
import { Reconstruct, TranscriptParse } from "@acx/convert"
import * as Fixtures from "@acx/fixtures"
import * as Transcript from "@acx/schema/Transcript"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type Candidate, measure } from "./harness.js"

const main = () => {
  const file = path.join(
    Fixtures.fixturesDir,
    "claude-code-jsonl",
    "marot-spotter",
    "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
  )
  const text = fs.readFileSync(file, "utf8")
  const megabytes = Buffer.byteLength(text) / 1e6
  const baseline: Candidate<string> = {
    name: "baseline: split lines + JSON.parse",
    run: (t) => t.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line)).length
  }
  const parse: Candidate<string> = {
    name: "acx: parseTranscript (envelope-checked, lenient)",
    run: (t) => TranscriptParse.parseTranscript(t).entries.length
  }
  const parseAndReconstruct: Candidate<string> = {
    name: "acx: parse + reconstruct (full history)",
    run: (t) => Reconstruct.conversation(TranscriptParse.parseTranscript(t).entries.map((p) => p.entry)).length
  }
  console.log(
    `transcript bench — ${new Date().toISOString()} — node ${process.version}, ${
      os.cpus()[0]?.model ?? "cpu"
    } x${os.cpus().length}`
  )
  console.log(`input: ${path.basename(file)} (${megabytes.toFixed(2)} MB, ${text.split("\n").length - 1} lines)`)
  const results = measure([baseline, parse, parseAndReconstruct], [text], { rounds: 7, targetMillisPerRound: 150 })
  const base = results[0]!.medianPerSecond
  for (const r of results) {
    console.log(
      `  ${r.name.padEnd(48)} ${(r.medianPerSecond * megabytes).toFixed(1).padStart(7)} MB/s  ratio ${
        (r.medianPerSecond / base).toFixed(2)
      }x`
    )
  }
  // Measured apart: its allocation would change the garbage collector's behaviour in the others.
  const strict: Candidate<string> = {
    name: "deep check: decodeLineStrict per line",
    run: (t) =>
      t.split("\n").filter((line) => line !== "").map((line, i) => Transcript.decodeLineStrict(line, i)).length
  }
  const [deep] = measure([strict], [text], { rounds: 3, targetMillisPerRound: 150 })
  console.log(
    `  ${deep!.name.padEnd(48)} ${(deep!.medianPerSecond * megabytes).toFixed(1).padStart(7)} MB/s  ratio ${
      (deep!.medianPerSecond / base).toFixed(2)
    }x (separate run)`
  )
  const ratio = results[2]!.medianPerSecond / base
  console.log(
    `parse + reconstruct ratio vs baseline: ${ratio.toFixed(2)}x (target >= 0.50x) ${ratio >= 0.5 ? "MET" : "NOT MET"}`
  )
}

main()
