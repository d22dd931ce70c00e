/**
 * `portal --help`: the commands, every flag (from {@link FLAGS}), the
 * environment variables, and where this user's files go.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usage } from "./usage.ts";
 *
 * const text = usage({ HOME: "/home/ada" }, "portal");
 * assert.match(text, /--log-level LEVEL/);
 * assert.match(text, /PORTAL_TOKEN/);
 * assert.match(text, /PORTAL_SECRET_ENV/);
 * assert.match(usage({ HOME: "/home/ada" }, "deno run -A main.ts"), /^  deno run -A main.ts ps/m);
 * ```
 * @module
 */
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { dataDir, recordsDir, userDbPath } from "../core/store/paths.ts";
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_SESSION_IDLE_S,
} from "../limits.ts";
import { VERSION } from "../version.ts";
import { COMMANDS, FLAGS } from "./args.ts";

const WIDTH = 80;
const INDENT = 24;

/**
 * The help text, with the paths as `env` (the environment and path flags)
 * resolves them, naming the command as it was run (see {@link invokedAs}).
 */
export function usage(env: Record<string, string>, portal: string = invokedAs()): string {
  const flags = FLAGS.map((flag) =>
    item(`${flag.names.join(", ")}${flag.value ? ` ${flag.value}` : ""}`, flag.help)
  );
  const commands = COMMANDS.map((command) =>
    item(`${portal} ${command.name}${command.operand ? ` ${command.operand}` : ""}`, command.help)
  );
  return [
    `Portal ${VERSION}: an MCP server that lets AI agents drive interactive terminal programs`,
    "(ssh, gdb, psql, python/node REPLs, vim, less, top) on pipes or real pseudo-terminals.",
    "",
    "Usage:",
    item(
      `${portal} [OPTIONS]`,
      "Serve MCP on stdio: what an MCP client's config runs. It reaches this user's Portal " +
        "host, starting it if none runs; programs started with keep: true outlive the client.",
    ),
    item(
      `${portal} --http PORT`,
      "Serve MCP over Streamable HTTP, for clients that cannot start it.",
    ),
    ...commands,
    item(`${portal} --help | --version`, ""),
    "",
    "Options:",
    ...flags,
    item("-h, --help", "Print this text."),
    item("-V, --version", "Print the version."),
    "",
    "Environment:",
    item("PORTAL_DB_PATH", "The records database; --db wins over it."),
    item("PORTAL_NO_HOST", "1: as --no-host."),
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
      `Every program's input and output. Default: ${userDbPath(env)}, the host's, for every ` +
        `client of this user; with --no-host or --http, a new ${recordsDir(env)}/` +
        "portal-<pid>-<ms>.db per server. A named one (--db) has a host of its own; only one " +
        "host or server at a time uses a database.",
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

/**
 * How this Portal was started, as a person would type it: `portal` for a
 * binary, `deno run -A main.ts` from a clone (the path as seen from here),
 * `deno run -A jsr:@portal/mcp` from JSR.
 */
export function invokedAs(): string {
  if (Deno.build.standalone) return "portal";
  const main = Deno.mainModule;
  if (!main.startsWith("file:")) return "deno run -A jsr:@portal/mcp";
  return `deno run -A ${relative(Deno.cwd(), fileURLToPath(main)) || "main.ts"}`;
}
