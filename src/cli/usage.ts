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
import { realpathSync } from "node:fs";
import { delimiter, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { dataDir, recordsDir, userDbPath } from "../core/store/paths.ts";
import { ENV_VARS } from "../env_vars.ts";
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
    // Markdown's code marks left out: the help is plain text.
    ...ENV_VARS.map((v) => item(v.name, `${v.help} Default: ${v.default}.`.replaceAll("`", ""))),
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

/** What {@link invokedAs} looks at; each defaults to this process's. */
export interface Invocation {
  standalone?: boolean;
  main?: string;
  execPath?: string;
  cwd?: string;
  path?: string;
}

/**
 * How this Portal was started, as a person would type it again: `portal` for
 * a binary or the npm package (`npx -y portal-mcp` when npx fetched it); from a clone `deno run -A main.ts` (the path as seen from here),
 * from JSR `deno run -A jsr:@portal/mcp`, where `deno` is `npx -y deno@2`
 * when npx fetched Deno (its cache, `_npx/`), and Deno's absolute path when
 * `deno` on PATH is not this one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { invokedAs } from "./usage.ts";
 *
 * const clone = { standalone: false, main: "file:///src/portal/main.ts", cwd: "/src/portal" };
 * const npx = "/home/ada/.npm/_npx/9f2c/node_modules/deno/deno";
 * assert.equal(invokedAs({ ...clone, execPath: npx }), "npx -y deno@2 run -A main.ts");
 * assert.equal(
 *   invokedAs({ ...clone, execPath: "/opt/deno/deno", path: "/usr/bin" }),
 *   "/opt/deno/deno run -A main.ts",
 * );
 * assert.equal(invokedAs({ standalone: true }), "portal");
 * const pkg = "/usr/lib/node_modules/portal-mcp/portal/main.js";
 * assert.equal(invokedAs({ ...clone, main: `file://${pkg}` }), "portal");
 * const fetched = "/home/ada/.npm/_npx/1a2b/node_modules/portal-mcp/portal/main.js";
 * assert.equal(invokedAs({ ...clone, main: `file://${fetched}` }), "npx -y portal-mcp");
 * ```
 */
export function invokedAs(how: Invocation = {}): string {
  const {
    standalone = Deno.build.standalone,
    main = Deno.mainModule,
    execPath = Deno.execPath(),
    cwd = Deno.cwd(),
    path = Deno.env.get("PATH") ?? "",
  } = how;
  if (standalone) return "portal";
  // The npm package's build (dev/package/pack.ts), run by its bin `portal`.
  if (/[\\/]node_modules[\\/]portal-mcp[\\/]portal[\\/]main\.js$/.test(main)) {
    return /[\\/]_npx[\\/]/.test(main) ? "npx -y portal-mcp" : "portal";
  }
  const deno = /[\\/]_npx[\\/]/.test(execPath)
    ? "npx -y deno@2"
    : onPath(execPath, path)
    ? "deno"
    : execPath;
  if (!main.startsWith("file:")) return `${deno} run -A jsr:@portal/mcp`;
  return `${deno} run -A ${relative(cwd, fileURLToPath(main)) || "main.ts"}`;
}

/** Whether `deno` on `path` is the executable at `execPath`. */
function onPath(execPath: string, path: string): boolean {
  const real = (file: string) => {
    try {
      return realpathSync(file);
    } catch {
      return undefined;
    }
  };
  const self = real(execPath);
  return self !== undefined &&
    path.split(delimiter).some((dir) =>
      dir !== "" && ["deno", "deno.exe"].some((name) => real(join(dir, name)) === self)
    );
}
