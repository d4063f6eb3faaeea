/**
 * The source files a realistic conversation's turns work on (read, test, edit), one per turn in
 * turn order, and how the `Read` tool numbers their lines.
 */

export interface TurnFile {
  readonly file: string
  readonly test: string
  readonly lines: ReadonlyArray<string>
  readonly oldString: string
  readonly newString: string
  readonly failure: string
  readonly summary: string
}

export const FILES: ReadonlyArray<TurnFile> = [
  {
    file: "src/dates.ts",
    test: "test/dates.test.ts",
    lines: [
      "export const parseDate = (input: string): Date => {",
      "  const [year, month, day] = input.split(\"-\").map(Number)",
      "  return new Date(year, month - 1, day)",
      "}",
      "",
      "export const formatDate = (date: Date): string => date.toISOString().slice(0, 10)"
    ],
    oldString: "  return new Date(year, month - 1, day)",
    newString: "  return new Date(Date.UTC(year, month - 1, day))",
    failure: " FAIL  test/dates.test.ts > parseDate > keeps the calendar day in UTC\n" +
      "AssertionError: expected '2024-03-09' to be '2024-03-10' // Object.is equality",
    summary: "`parseDate` now builds the date in UTC, so `formatDate(parseDate(s))` round-trips in every time zone."
  },
  {
    file: "src/routes/invoices.ts",
    test: "test/routes/invoices.test.ts",
    lines: [
      "import { parseDate } from \"../dates.js\"",
      "",
      "export const dueDate = (body: { readonly dueDate: string }): Date => parseDate(body.dueDate)",
      "",
      "export const isOverdue = (due: Date, now: Date): boolean => due.getTime() < now.getTime()"
    ],
    oldString: "due.getTime() < now.getTime()",
    newString: "due.getTime() + 86_400_000 <= now.getTime()",
    failure: "",
    summary: "an invoice is now overdue only once its whole due day has passed."
  },
  {
    file: "src/jobs/reminders.ts",
    test: "test/jobs/reminders.test.ts",
    lines: [
      "import { isOverdue } from \"../routes/invoices.js\"",
      "",
      "export const remindersFor = (rows: ReadonlyArray<{ readonly due: Date }>, now: Date) =>",
      "  rows.filter((row) => isOverdue(row.due, now))"
    ],
    oldString: "rows.filter((row) => isOverdue(row.due, now))",
    newString: "rows.filter((row) => isOverdue(row.due, now)).slice(0, 100)",
    failure: "",
    summary: "reminders are capped at 100 per run, matching the mail provider's batch limit."
  }
]

export const numbered = (lines: ReadonlyArray<string>): string =>
  lines.map((line, index) => `${String(index + 1).padStart(6)}→${line}`).join("\n")
