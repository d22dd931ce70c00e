/**
 * Portal: an MCP server that lets AI agents drive interactive terminal
 * programs (ssh, gdb, psql, python/node REPLs, vim, less, top) on pipes or
 * real pseudo-terminals: start a program, write to it, read what it prints,
 * look at its screen, signal it, kill it.
 *
 * This module is the command. It needs Deno 2; the first run downloads the
 * package, later runs start from Deno's cache:
 *
 * ```sh
 * deno run -A jsr:@portal/mcp --version   # portal 0.1.0
 * deno run -A jsr:@portal/mcp doctor      # checks terminals, directories, database
 * deno run -A jsr:@portal/mcp --help      # every flag and variable, and where files go
 * deno run -A jsr:@portal/mcp             # the MCP server on stdio
 * ```
 *
 * An MCP client starts it for you. Give the client the absolute path of
 * `deno` (`command -v deno`): desktop apps do not get your shell's PATH and
 * fail on a bare `deno` with `spawn deno ENOENT`. Claude Code, for every
 * project:
 *
 * ```sh
 * claude mcp add -s user portal -- /home/you/.deno/bin/deno run -A jsr:@portal/mcp
 * ```
 *
 * Every other client (Claude Desktop, Cursor, VS Code, Codex, and over
 * Streamable HTTP with `--http`): docs/clients.md in the repository.
 *
 * @module
 */
import { parseArgs, UsageError } from "./src/cli/args.ts";
import { FULL_ACCESS } from "./src/core/policy/policy.ts";
import { NO_HOST, POLICY, readVar, withPathFlags } from "./src/env_vars.ts";
import { HOST_SUPPORTED } from "./src/platform.ts";
import { VERSION } from "./src/version.ts";

if (import.meta.main) {
  const env = Deno.env.toObject();
  let invocation;
  try {
    invocation = parseArgs(Deno.args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const { usage } = await import("./src/cli/usage.ts");
    console.error(`portal: ${error.message}\n\n${usage(env)}`);
    Deno.exit(2);
  }
  // Each command loads only what it needs: a door starts in a few milliseconds.
  switch (invocation.command) {
    case "help": {
      const { usage } = await import("./src/cli/usage.ts");
      console.log(usage(env));
      break;
    }
    case "version":
      console.log(`portal ${VERSION}`);
      break;
    case "doctor": {
      const { doctor } = await import("./src/cli/doctor.ts");
      const report = await doctor(withPathFlags(invocation.options, env));
      console.log(report.text);
      Deno.exit(report.ok ? 0 : 1);
      break;
    }
    case "watch":
    case "export": {
      const { NotFound, watchLink } = await import("./src/cli/watch_link.ts");
      const { exportCast } = await import("./src/cli/export.ts");
      try {
        const files = withPathFlags(invocation.options, env);
        if (invocation.command === "watch") console.log(watchLink(files, invocation.target));
        else await exportCast(files, invocation.target);
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        const { visible } = await import("./src/cli/visible.ts");
        console.error(`portal: ${visible(error.message)}`);
        Deno.exit(1);
      }
      break;
    }
    case "ps": {
      const { ps } = await import("./src/cli/ps.ts");
      Deno.exit(await ps(withPathFlags(invocation.options, env)));
      break;
    }
    case "attach": {
      const { attach } = await import("./src/cli/attach.ts");
      Deno.exit(await attach(invocation.target, withPathFlags(invocation.options, env)));
      break;
    }
    case "remote": {
      const { remoteCommand } = await import("./src/remote/install.ts");
      Deno.exit(await remoteCommand(invocation.verb, invocation.machine, env));
      break;
    }
    case "host": {
      const { serveHost } = await import("./src/server/host.ts");
      await serveHost(invocation.options, env);
      break;
    }
    case "serve": {
      const { options } = invocation;
      const paths = withPathFlags(options, env);
      // No policy named: its reader (and a TOML parser) is not loaded.
      const policy = readVar(POLICY, paths)
        ? (await import("./src/cli/policy_option.ts")).policyOrExit(paths)
        : FULL_ACCESS;
      if (options.http || options.noHost || readVar(NO_HOST, env) || !HOST_SUPPORTED) {
        const { serve } = await import("./src/cli/serve.ts");
        await serve(options, env, policy);
      } else {
        const { door } = await import("./src/host/door.ts");
        await door(paths, options, policy);
      }
    }
  }
}
