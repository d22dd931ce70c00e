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
 * assert.equal(exported.command === "export" && exported.target, "3");
 * const watched = parseArgs(["watch", "calc"]);
 * assert.equal(watched.command === "watch" && watched.target, "calc");
 * const attach = parseArgs(["attach", "calc"]);
 * assert.equal(attach.command === "attach" && attach.target, "calc");
 * assert.equal(parseArgs(["ps"]).command, "ps");
 * const install = parseArgs(["remote", "install", "db1"]);
 * assert.equal(install.command === "remote" && install.machine, "db1");
 * assert.throws(() => parseArgs(["remote", "db1"]), /portal remote install MACHINE/);
 * assert.throws(() => parseArgs(["--verbose"]), UsageError);
 * assert.throws(() => parseArgs(["attach"]), /attach needs one \[MACHINE:\]ID\|NAME/);
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
  /** `--no-host` (or `PORTAL_NO_HOST=1`): serve stdio in this process, without the host. */
  noHost: boolean;
  /** `--policy`: the person's rules for every program (as `PORTAL_POLICY`). */
  policy?: string;
}

/** What the command line asks for. */
export type Invocation =
  | { command: "serve"; options: Options }
  | { command: "doctor" | "host" | "ps"; options: Options }
  /** `portal attach ID|NAME`: join a program from this terminal. */
  | { command: "attach"; target: string; options: Options }
  /** `portal watch [ID|NAME]`: print the watch page's link. */
  | { command: "watch"; target?: string; options: Options }
  /** `portal export ID|NAME`: print a PTY process's asciicast. */
  | { command: "export"; target: string; options: Options }
  /** `portal remote install|uninstall MACHINE`: set another machine up, or remove what that did. */
  | { command: "remote"; verb: "install" | "uninstall"; machine: string; options: Options }
  | { command: "help" }
  | { command: "version" };

/** One flag: its value's name (none for a switch), who accepts it, and its line of help. */
export interface Flag {
  names: string[];
  value?: string;
  /** Taken by the commands that take only the path flags ({@link COMMANDS}), not only by serve. */
  doctor?: true;
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
    help: `Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio. HOST defaults to ` +
      `${DEFAULT_HOST} (loopback); PORT 0 picks a free port.`,
    set: (options, value) => options.http = parseListen(value),
  },
  {
    names: ["--allow-host"],
    value: "NAME",
    help: "With --http: also accept requests whose Host or Origin is NAME (repeatable). " +
      "Loopback names and the --http HOST are always accepted.",
    set: (options, value) => options.allowHosts.push(value.toLowerCase()),
  },
  {
    names: ["--share-processes"],
    help: "With --http: every session sees and controls every process. Default: each session " +
      "only its own, and they are killed when it ends.",
    set: (options) => options.shareProcesses = true,
  },
  {
    names: ["--watch-port"],
    value: "PORT",
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
    help: `Least severe diagnostics written to stderr and sent to clients until they choose: ` +
      `${LOG_LEVELS.join(", ")}. Default: info.`,
    set: (options, value) => options.logLevel = parseLevel(value),
  },
  {
    names: ["--policy"],
    value: "FILE",
    doctor: true,
    help: "The person's rules for every program started (JSON or TOML; overrides " +
      "PORTAL_POLICY): what they may write, read, reach and run, enforced by the kernel.",
    set: (options, value) => options.policy = value,
  },
  {
    names: ["--no-host"],
    help: "Serve stdio in this process, without the host: programs end with it (as " +
      "PORTAL_NO_HOST=1).",
    set: (options) => options.noHost = true,
  },
];

/**
 * A command besides serving: its operand (`optional` when it may be left
 * out), whether it takes every flag (`allFlags`) or only those marked
 * `doctor`, and its line of help.
 */
export interface CommandSpec {
  name: "attach" | "ps" | "watch" | "export" | "doctor" | "host" | "remote";
  operand?: string;
  optional?: boolean;
  allFlags?: true;
  help: string;
}

/** Every command, in the order the usage text lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "attach",
    operand: "[MACHINE:]ID|NAME",
    help: "Join a running program from this terminal (Ctrl+] detaches; it runs on).",
  },
  {
    name: "ps",
    help: "List the host's processes: id, name, keep, state, command.",
  },
  {
    name: "watch",
    operand: "[ID|NAME]",
    optional: true,
    help: "Print the running server's watch page link (a browser).",
  },
  {
    name: "export",
    operand: "ID|NAME",
    help: "Print a PTY process's recording (asciicast): > session.cast",
  },
  {
    name: "doctor",
    help: "Check terminals, directories and the database; print a report.",
  },
  {
    name: "remote",
    operand: "install|uninstall MACHINE",
    help: "Set a machine up (ssh): Portal (and Deno if it has none) copied there (docs/remote.md).",
  },
  {
    name: "host",
    allFlags: true,
    help: "Run the host in the foreground (a door starts it when none runs).",
  },
];

/** The switches that stop parsing and answer at once. */
const ANSWERS: Record<string, "help" | "version"> = {
  "--help": "help",
  "-h": "help",
  "--version": "version",
  "-V": "version",
};

/** Parses `portal`'s arguments (without the program name). */
export function parseArgs(args: readonly string[]): Invocation {
  const options: Options = {
    allowHosts: [],
    shareProcesses: false,
    logLevel: "info",
    noHost: false,
  };
  let command: CommandSpec | undefined;
  const given: Flag[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (ANSWERS[arg]) return { command: ANSWERS[arg] };
    const named = i === 0 ? COMMANDS.find((c) => c.name === arg) : undefined;
    if (named) {
      command = named;
      continue;
    }
    if (!arg.startsWith("-")) {
      if (command?.operand) {
        positional.push(arg);
        continue;
      }
      const names = COMMANDS.map((c) => c.name).join(", ");
      throw new UsageError(`unexpected argument "${arg}" (the commands are ${names})`);
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
  if (command && !command.allFlags) {
    const misplaced = given.find((flag) => !flag.doctor);
    if (misplaced) throw new UsageError(`${misplaced.names[0]} does not apply to ${command.name}`);
  } else if (!options.http && (options.allowHosts.length > 0 || options.shareProcesses)) {
    throw new UsageError(
      `${options.shareProcesses ? "--share-processes" : "--allow-host"} needs --http`,
    );
  }
  if (options.http && (options.noHost || command?.name === "host")) {
    throw new UsageError(
      `--http ${options.noHost ? "is its own server: drop --no-host" : "does not apply to host"}`,
    );
  }
  if (command?.operand) {
    const { name, operand } = command;
    const words = operand.split(" ").length;
    const wrongVerb = name === "remote" && !["install", "uninstall"].includes(positional[0]);
    if (
      positional.length > words || (positional.length < words && !command.optional) || wrongVerb
    ) {
      throw new UsageError(
        name === "export"
          ? "export takes one process id or name: portal export ID|NAME > session.cast"
          : name === "remote"
          ? "remote takes install (or uninstall) and a machine: portal remote install MACHINE"
          : `${name} needs ${command.optional ? "at most one" : "one"} ${operand}: ` +
            `portal ${name} ${operand}`,
      );
    }
  }
  switch (command?.name) {
    case undefined:
      return { command: "serve", options };
    case "export":
    case "watch":
    case "attach":
      return { command: command.name, target: positional[0], options };
    case "remote":
      return {
        command: "remote",
        verb: positional[0] as "install" | "uninstall",
        machine: positional[1],
        options,
      };
    default:
      return { command: command!.name, options };
  }
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
