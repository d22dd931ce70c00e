/**
 * Portal: an MCP server that lets AI agents drive interactive terminal
 * programs (ssh, gdb, psql, python/node REPLs, vim, less, top) on pipes or
 * real pseudo-terminals, through 14 tools.
 *
 * ```sh
 * deno run -A jsr:@portal/mcp             # serve MCP on stdio
 * deno run -A jsr:@portal/mcp --help      # every flag, variable and path
 * deno run -A jsr:@portal/mcp doctor      # check this machine
 * ```
 *
 * In an MCP client's configuration, give the absolute path of `deno` (run
 * `which deno`): apps started from a desktop often lack the shell's PATH, and
 * fail with `spawn deno ENOENT`. For example, Claude Code:
 *
 * ```sh
 * claude mcp add portal -s user -- "$(which deno)" run -A jsr:@portal/mcp
 * ```
 *
 * `--http [HOST:]PORT` serves Streamable HTTP at `/mcp` instead (loopback by
 * default, bearer token from `PORTAL_TOKEN` or printed on stderr).
 *
 * @module
 */
import { parseArgs, UsageError, withPathFlags } from "./src/cli/args.ts";
import { doctor } from "./src/cli/doctor.ts";
import { serve } from "./src/cli/serve.ts";
import { usage } from "./src/cli/usage.ts";
import { VERSION } from "./src/mcp/server.ts";

if (import.meta.main) {
  const env = Deno.env.toObject();
  let invocation;
  try {
    invocation = parseArgs(Deno.args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`portal: ${error.message}\n\n${usage(env)}`);
    Deno.exit(2);
  }
  switch (invocation.command) {
    case "help":
      console.log(usage(env));
      break;
    case "version":
      console.log(`portal ${VERSION}`);
      break;
    case "doctor": {
      const report = await doctor(withPathFlags(invocation.options, env));
      console.log(report.text);
      Deno.exit(report.ok ? 0 : 1);
      break;
    }
    case "serve":
      await serve(invocation.options, env);
  }
}
