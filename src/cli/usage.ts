/**
 * `portal --help`: the commands, every flag (from {@link FLAGS}), the
 * environment variables, and where this user's files go.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usage } from "./usage.ts";
 *
 * const text = usage({ HOME: "/home/ada" });
 * assert.match(text, /--log-level LEVEL/);
 * assert.match(text, /PORTAL_TOKEN/);
 * assert.match(text, /PORTAL_SECRET_ENV/);
 * ```
 * @module
 */
import { dataDir, recordsDir } from "../core/store/paths.ts";
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_SESSION_IDLE_S,
} from "../limits.ts";
import { VERSION } from "../mcp/server.ts";
import { FLAGS } from "./args.ts";

const WIDTH = 80;
const INDENT = 24;

/** The help text, with the paths as `env` (the environment and path flags) resolves them. */
export function usage(env: Record<string, string>): string {
  const flags = FLAGS.map((flag) =>
    item(`${flag.names.join(", ")}${flag.value ? ` ${flag.value}` : ""}`, flag.help)
  );
  return [
    `Portal ${VERSION}: an MCP server that lets AI agents drive interactive terminal programs`,
    "(ssh, gdb, psql, python/node REPLs, vim, less, top) on pipes or real pseudo-terminals.",
    "",
    "Usage:",
    item("portal [OPTIONS]", "Serve MCP on stdio: what an MCP client's config runs."),
    item("portal --http PORT", "Serve MCP over Streamable HTTP, for clients that cannot start it."),
    item("portal doctor", "Check terminals, directories and the database; print a report."),
    item("portal watch [ID|NAME]", "Print the running server's watch page link (a browser)."),
    item("portal export ID", "Print a PTY process's recording (asciicast): > session.cast"),
    item("portal --help | --version", ""),
    "",
    "Options:",
    ...flags,
    item("-h, --help", "Print this text."),
    item("-V, --version", "Print the version."),
    "",
    "Environment:",
    item("PORTAL_DB_PATH", "The records database; --db wins over it."),
    item("PORTAL_DATA_DIR", "The program registry's directory; --data-dir wins over it."),
    item(
      "PORTAL_MAX_OUTPUT_BYTES",
      "Bytes of records kept per process before the oldest are dropped; 0: no cap " +
        `(default ${DEFAULT_MAX_OUTPUT_BYTES}, ${DEFAULT_MAX_OUTPUT_BYTES >> 20} MiB).`,
    ),
    item(
      "PORTAL_RETENTION_DAYS",
      `Days a records database stays in ${recordsDir(env)} after its server ended ` +
        `(default ${DEFAULT_RETENTION_DAYS}).`,
    ),
    item(
      "PORTAL_TOKEN",
      "With --http: the bearer token clients must send (Authorization: Bearer TOKEN). " +
        "Unset: a new random token at each start, printed on stderr.",
    ),
    item(
      "PORTAL_SESSION_IDLE_S",
      "With --http: a session with no request open for this many seconds ends, its processes " +
        `killed as by its DELETE; 0: never (default ${DEFAULT_SESSION_IDLE_S}).`,
    ),
    item(
      "PORTAL_MAX_SESSIONS",
      "With --http: sessions at once; a new one ends the one idle the longest, or gets 503 " +
        `when all are busy (default ${DEFAULT_MAX_SESSIONS}).`,
    ),
    item(
      "PORTAL_SECRET_ENV",
      "Names (comma-separated) of variables that are secrets: process_write's secret_env may " +
        "type their values, and may name no other variable.",
    ),
    item("PORTAL_SECRET_*", "Every variable so named is a secret too."),
    "",
    "No program Portal starts sees a secret, PORTAL_TOKEN or any PORTAL_* variable.",
    "",
    "Files:",
    item(
      "records database",
      `Every program's input and output. Default: a new ${recordsDir(env)}/portal-<pid>-<ms>.db ` +
        "per server. A named one (--db) is opened and kept, and only one server at a time may " +
        "use it.",
    ),
    item("program registry", `${dataDir(env)}/programs.db, shared by every Portal of this user.`),
    "",
    "stdout carries nothing but MCP messages; diagnostics go to stderr, and to MCP",
    "clients as notifications/message.",
  ].join("\n");
}

/** A term and its help, the help wrapped into a column. */
function item(term: string, help: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of help.split(" ")) {
    if (line && line.length + 1 + word.length > WIDTH - INDENT) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  const head = `  ${term}`;
  const first = head.length < INDENT ? head.padEnd(INDENT) + (lines.shift() ?? "") : head;
  return [first.trimEnd(), ...lines.map((l) => " ".repeat(INDENT) + l)].join("\n");
}
