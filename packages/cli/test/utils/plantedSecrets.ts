/**
 * A transcript with secrets in it, for the tests of what search shows: secrets of several shapes
 * in a prompt, an assistant reply, a tool input and a tool result, each near a rare word the
 * tests search for (`zebrafinch`), some placed so that a snippet's window starts inside them.
 * Also two texts for a ranking check (`quokka`), and a terminal escape inside a tool result.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/** Random letters and digits (always all three kinds, so they look like keys). */
const random = (length: number): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
  let out = "aZ0"
  while (out.length < length) out += alphabet[Math.floor(Math.random() * alphabet.length)]
  return out
}

const upperDigits = (length: number): string => {
  let out = ""
  while (out.length < length) out += "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[Math.floor(Math.random() * 32)]
  return out
}

/** The secrets, by shape, and the parts of each that must never be shown. */
export interface PlantedSecrets {
  readonly anthropic: string
  readonly github: string
  readonly awsAccessKey: string
  readonly awsSecret: string
  readonly password: string
  readonly pemBody: ReadonlyArray<string>
}

export const makeSecrets = (): PlantedSecrets => ({
  // dashes split it into many index words: a snippet's window can start in its middle
  anthropic: `sk-ant-api03-${random(10)}-${random(10)}-${random(10)}-${random(10)}-${random(10)}-${random(8)}AA`,
  github: `ghp_${random(36)}`,
  awsAccessKey: `AKIA${upperDigits(16)}`,
  awsSecret: `${random(30)}/${random(9)}`,
  password: `hunter2-${random(16)}`,
  pemBody: Array.from({ length: 12 }, () => `${random(30)}+${random(20)}/${random(12)}`)
})

/** The fragments of the secrets that a shown text must not contain. */
export const secretFragments = (secrets: PlantedSecrets): Array<string> => {
  const parts = [
    ...secrets.anthropic.split("-").slice(3),
    secrets.github.slice(4),
    secrets.awsAccessKey,
    ...secrets.awsSecret.split("/"),
    secrets.password.slice("hunter2-".length),
    ...secrets.pemBody.flatMap((line) => line.split(/[+/]/))
  ]
  return parts.filter((part) => part.length >= 8)
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * One turn of a session, each text where a secret may be planted: a prompt, an assistant reply
 * with a Bash call, and the call's result (three entries with uuids, a second apart).
 */
export const toolTurn = (
  sessionId: string,
  startMs: number,
  texts: { readonly prompt: string; readonly reply: string; readonly command: string; readonly output: string }
) => {
  const toolId = `toolu_${random(20)}`
  const base = (i: number) => ({ uuid: randomUUID(), sessionId, timestamp: iso(startMs + i * 1000), cwd: "/planted" })
  return [
    { ...base(0), type: "user", message: { role: "user", content: texts.prompt } },
    {
      ...base(1),
      type: "assistant",
      requestId: `req_${random(12)}`,
      message: {
        id: `msg_${random(12)}`,
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [
          { type: "text", text: texts.reply },
          { type: "tool_use", id: toolId, name: "Bash", input: { command: texts.command } }
        ],
        usage: { input_tokens: 10, output_tokens: 5 }
      }
    },
    {
      ...base(2),
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolId, content: texts.output }] }
    }
  ]
}

/** The entries of the planted session, in order. */
export const plantedEntries = (sessionId: string, secrets: PlantedSecrets, startMs: number) => {
  const filler = Array.from({ length: 400 }, (_, i) => `filler${i}`).join(" ")
  const pem = [
    "-----BEGIN RSA PRIVATE KEY-----",
    ...secrets.pemBody,
    "-----END RSA PRIVATE KEY-----"
  ].join("\n")
  const base = (i: number) => ({ uuid: randomUUID(), sessionId, timestamp: iso(startMs + i * 1000), cwd: "/planted" })
  return [
    ...toolTurn(sessionId, startMs, {
      prompt: `zebrafinch prompt: my key is ${secrets.anthropic} zebrafinch, token ${secrets.github}`,
      reply: `zebrafinch reply with aws_secret_access_key = ${secrets.awsSecret} kept`,
      command: `cat .env # zebrafinch ${secrets.awsAccessKey}`,
      output: `PASSWORD=${secrets.password}\n${pem}\nzebrafinch after the key \u001b[31mred zebrafinch\u001b[0m`
    }),
    { ...base(3), type: "user", message: { role: "user", content: "quokka quokka quokka" } },
    { ...base(4), type: "user", message: { role: "user", content: `${filler} quokka ${filler}` } }
  ]
}

/** Writes the planted session into a config dir's project; its session id and entries. */
export const plantSession = (configDir: string, projectKey: string, secrets: PlantedSecrets, startMs: number) => {
  const sessionId = randomUUID()
  const entries = plantedEntries(sessionId, secrets, startMs)
  const dir = path.join(configDir, "projects", projectKey)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, `${sessionId}.jsonl`),
    entries.map((entry) => JSON.stringify(entry)).join("\n") + "\n"
  )
  return { sessionId, entries }
}
