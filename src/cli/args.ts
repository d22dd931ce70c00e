/**
 * The command line: what `portal …` asks for, parsed strictly. Every flag is
 * declared once in {@link FLAGS}, which the usage text is printed from; an
 * unknown flag, a missing value or a flag that does not apply is a
 * {@link UsageError}, never ignored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs, UsageError } from "./args.ts";
 *
 * const run = parseArgs(["--http", "8080", "--log-level=debug"]);
 * assert.equal(run.command, "serve");
 * assert.deepEqual(run.command === "serve" && run.options.http, { hostname: "127.0.0.1", port: 8080 });
 * assert.equal(parseArgs(["doctor", "--db", "/tmp/x.db"]).command, "doctor");
 * const exported = parseArgs(["export", "3"]);
 * assert.equal(exported.command === "export" && exported.id, 3);
 * const watched = parseArgs(["watch", "calc"]);
 * assert.equal(watched.command === "watch" && watched.target, "calc");
 * assert.throws(() => parseArgs(["--verbose"]), UsageError);
 * ```
 * @module
 */
import type { Listen } from "../mcp/http.ts";
import { LOG_LEVELS, type LoggingLevel } from "../mcp/logging.ts";

/** A mistake on the command line; its message says which and what is accepted. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Everything the flags can set; unset paths fall back to the environment, then defaults. */
export interface Options {
  /** `--db`: the records database (as `PORTAL_DB_PATH`). */
  db?: string;
  /** `--data-dir`: the program registry's directory (as `PORTAL_DATA_DIR`). */
  dataDir?: string;
  /** `--http`: serve Streamable HTTP instead of stdio. */
  http?: Listen;
  /** `--allow-host`: more names the HTTP server answers to (Host and Origin). */
  allowHosts: string[];
  /** `--share-processes`: every HTTP session sees every process. */
  shareProcesses: boolean;
  /** `--log-level`: the stderr threshold and each session's until its client sets one. */
  logLevel: LoggingLevel;
  /** `--watch-port`: the watch page's loopback port (default: one the system picks). */
  watchPort?: number;
}

/** What the command line asks for. */
export type Invocation =
  | { command: "serve"; options: Options }
  | { command: "doctor"; options: Options }
  /** `portal watch [ID|NAME]`: print the watch page's link. */
  | { command: "watch"; target?: string; options: Options }
  /** `portal export ID`: print a PTY process's asciicast. */
  | { command: "export"; id: number; options: Options }
  | { command: "help" }
  | { command: "version" };

/** One flag: its value's name (none for a switch), who accepts it, and its line of help. */
export interface Flag {
  names: string[];
  value?: string;
  /** Taken by the commands that read Portal's files ({@link FILE_COMMANDS}), not only by serve. */
  doctor: boolean;
  help: string;
  set(options: Options, value: string): void;
}

/** The loopback address `--http PORT` listens on. */
export const DEFAULT_HOST = "127.0.0.1";

/** Every flag, in the order the usage text lists them. */
export const FLAGS: readonly Flag[] = [
  {
    names: ["--http"],
    value: "[HOST:]PORT",
    doctor: false,
    help: `Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio. HOST defaults to ` +
      `${DEFAULT_HOST} (loopback); PORT 0 picks a free port.`,
    set: (options, value) => options.http = parseListen(value),
  },
  {
    names: ["--allow-host"],
    value: "NAME",
    doctor: false,
    help: "With --http: also accept requests whose Host or Origin is NAME (repeatable). " +
      "Loopback names and the --http HOST are always accepted.",
    set: (options, value) => options.allowHosts.push(value.toLowerCase()),
  },
  {
    names: ["--share-processes"],
    doctor: false,
    help: "With --http: every session sees and controls every process. Default: each session " +
      "only its own, and they are killed when it ends.",
    set: (options) => options.shareProcesses = true,
  },
  {
    names: ["--watch-port"],
    value: "PORT",
    doctor: false,
    help: "The watch page's port on 127.0.0.1 (see process_watch). Default: one the system " +
      "picks. With --http the page is also at /watch there.",
    set: (options, value) => options.watchPort = parsePort("--watch-port", value),
  },
  {
    names: ["--db"],
    value: "PATH",
    doctor: true,
    help: "The records database of this server (overrides PORTAL_DB_PATH).",
    set: (options, value) => options.db = value,
  },
  {
    names: ["--data-dir"],
    value: "PATH",
    doctor: true,
    help: "Directory of the program registry, programs.db (overrides PORTAL_DATA_DIR).",
    set: (options, value) => options.dataDir = value,
  },
  {
    names: ["--log-level"],
    value: "LEVEL",
    doctor: false,
    help: `Least severe diagnostics written to stderr and sent to clients until they choose: ` +
      `${LOG_LEVELS.join(", ")}. Default: info.`,
    set: (options, value) => options.logLevel = parseLevel(value),
  },
];

/** The commands besides serving; they take only the flags marked `doctor`. */
export const FILE_COMMANDS = ["doctor", "watch", "export"] as const;
type FileCommand = typeof FILE_COMMANDS[number];

/** The switches that stop parsing and answer at once. */
const ANSWERS: Record<string, "help" | "version"> = {
  "--help": "help",
  "-h": "help",
  "--version": "version",
  "-V": "version",
};

/** Parses `portal`'s arguments (without the program name). */
export function parseArgs(args: readonly string[]): Invocation {
  const options: Options = { allowHosts: [], shareProcesses: false, logLevel: "info" };
  let command: "serve" | FileCommand = "serve";
  const given: Flag[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (ANSWERS[arg]) return { command: ANSWERS[arg] };
    if (i === 0 && (FILE_COMMANDS as readonly string[]).includes(arg)) {
      command = arg as FileCommand;
      continue;
    }
    if (!arg.startsWith("-")) {
      if (command === "watch" || command === "export") {
        positional.push(arg);
        continue;
      }
      throw new UsageError(
        `unexpected argument "${arg}" (the commands are ${FILE_COMMANDS.join(", ")})`,
      );
    }
    const [name, inline] = splitOnce(arg, "=");
    const flag = FLAGS.find((f) => f.names.includes(name));
    if (!flag) throw new UsageError(`unknown option ${name}`);
    let value = inline ?? "";
    if (flag.value && inline === undefined) {
      if (i + 1 >= args.length) {
        throw new UsageError(`${name} needs a value: ${name} ${flag.value}`);
      }
      value = args[++i];
    } else if (!flag.value && inline !== undefined) {
      throw new UsageError(`${name} takes no value`);
    }
    if (flag.value && value === "") throw new UsageError(`${name} needs a non-empty ${flag.value}`);
    flag.set(options, value);
    given.push(flag);
  }
  if (command !== "serve") {
    const misplaced = given.find((flag) => !flag.doctor);
    if (misplaced) throw new UsageError(`${misplaced.names[0]} does not apply to ${command}`);
  } else if (!options.http && (options.allowHosts.length > 0 || options.shareProcesses)) {
    throw new UsageError(
      `${options.shareProcesses ? "--share-processes" : "--allow-host"} needs --http`,
    );
  }
  if (command === "export") {
    const id = Number(positional[0]);
    if (positional.length !== 1 || !Number.isInteger(id) || id < 1) {
      throw new UsageError("export takes one process id: portal export ID > session.cast");
    }
    return { command, id, options };
  }
  if (command === "watch") {
    if (positional.length > 1) throw new UsageError("watch takes at most one ID or NAME");
    return { command, target: positional[0], options };
  }
  return { command, options };
}

/**
 * The environment with the path flags applied: `--db` and `--data-dir` mean
 * exactly what `PORTAL_DB_PATH` and `PORTAL_DATA_DIR` mean, and win over them.
 */
export function withPathFlags(
  options: Options,
  env: Record<string, string>,
): Record<string, string> {
  const flags: Record<string, string> = {};
  if (options.db !== undefined) flags.PORTAL_DB_PATH = options.db;
  if (options.dataDir !== undefined) flags.PORTAL_DATA_DIR = options.dataDir;
  return { ...env, ...flags };
}

function parsePort(flag: string, value: string): number {
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) {
    throw new UsageError(`${flag} takes a port number (0 picks a free one); got "${value}"`);
  }
  return port;
}

/** `PORT`, `HOST:PORT` or `[IPv6]:PORT`. */
function parseListen(value: string): Listen {
  const match = /^(?:(?:\[([^\]]+)\]|([^:]+)):)?(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new UsageError(
      `--http takes [HOST:]PORT, e.g. 8080 or 127.0.0.1:8080 or [::1]:8080; got "${value}"`,
    );
  }
  return { hostname: match[1] ?? match[2] ?? DEFAULT_HOST, port };
}

function parseLevel(value: string): LoggingLevel {
  const level = LOG_LEVELS.find((l) => l === value);
  if (!level) {
    throw new UsageError(`--log-level takes one of ${LOG_LEVELS.join(", ")}; got "${value}"`);
  }
  return level;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
