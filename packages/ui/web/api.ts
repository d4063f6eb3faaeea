// The page's requests: same-origin JSON with the token cookie; a failure is an Error whose
// message is the server's one line.

/** A failed request: its status and the server's message. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

const failure = async (response: Response): Promise<ApiError> => {
  const text = await response.text()
  try {
    const body = JSON.parse(text) as { error?: unknown }
    if (typeof body.error === "string") return new ApiError(response.status, body.error)
  } catch {
    // not JSON: the text itself
  }
  return new ApiError(response.status, text.trim() || `${response.status} ${response.statusText}`)
}

/** GET a JSON document. */
export const getJson = async <A>(url: string, signal?: AbortSignal): Promise<A> => {
  const response = await fetch(url, { credentials: "same-origin", ...(signal === undefined ? {} : { signal }) })
  if (!response.ok) throw await failure(response)
  return (await response.json()) as A
}

/** POST a JSON body (the page's only writes: memory curation) and read the JSON answer. */
export const postJson = async <A>(url: string, body: unknown): Promise<A> => {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  if (!response.ok) throw await failure(response)
  return (await response.json()) as A
}

/**
 * Reads a response of JSON lines as they arrive, calling `onItem` for each (a long session
 * renders its first screen before the rest has arrived).
 */
export const streamJsonLines = async <A>(
  url: string,
  onItem: (item: A) => void,
  signal?: AbortSignal
): Promise<void> => {
  const response = await fetch(url, { credentials: "same-origin", ...(signal === undefined ? {} : { signal }) })
  if (!response.ok || response.body === null) throw await failure(response)
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let pending = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    pending += value
    let newline = pending.indexOf("\n")
    while (newline >= 0) {
      const line = pending.slice(0, newline)
      pending = pending.slice(newline + 1)
      if (line.trim() !== "") onItem(JSON.parse(line) as A)
      newline = pending.indexOf("\n")
    }
  }
  if (pending.trim() !== "") onItem(JSON.parse(pending) as A)
}
