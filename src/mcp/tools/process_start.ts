import { z } from "zod";
import { defineTool } from "./tool.ts";
import { processSummary } from "./schemas.ts";

export const processStart = defineTool({
  name: "process_start",
  title: "Start a program",
  description:
    "Start a program for interactive use (ssh, gdb, psql/mysql, python/node REPLs, vim, htop, " +
    "less) and capture its I/O; not for one-shot commands (use your shell tool). Returns id, " +
    "os_pid, status. The command runs directly, never through a shell (for pipes or globbing " +
    "use command 'sh' with args ['-c', '…']); it leads its own process group.\n\n" +
    "pty: default false (pipes, stdout/stderr kept apart) is NOT a recommendation. Set true for " +
    "anything interactive or full-screen (programs that check isatty, REPLs, TUIs, -i/-t flags); " +
    "check program_query first. When in doubt, true: a batch program tolerates a terminal, an " +
    "interactive one on pipes hangs or goes silent. Paged one-shots (git log, man): pipes plus " +
    "--no-pager / PAGER=cat. pty: true is not yet available on Windows.",
  input: {
    command: z.string().min(1).describe("Executable name (looked up on PATH) or path."),
    args: z.array(z.string()).optional().describe("Arguments, one per element; no shell parsing."),
    cwd: z.string().optional().describe("Working directory (default: the server's)."),
    env: z.record(z.string(), z.string()).optional().describe(
      "Environment variables, merged over the server's environment.",
    ),
    // setTimeout's limit (about 24.8 days): beyond it a timer would fire at once.
    timeout_ms: z.number().int().min(0).max(2_147_483_647).optional().describe(
      "Idle timeout: with no read or write for this long, the process is killed and its data " +
        "removed. 0 or omitted = no timeout.",
    ),
    pty: z.boolean().optional().describe(
      "Run on a pseudo-terminal (see description). Default false.",
    ),
    cols: z.number().int().min(1).max(1000).optional().describe(
      "Terminal width (pty). Default 80.",
    ),
    rows: z.number().int().min(1).max(1000).optional().describe(
      "Terminal height (pty). Default 24.",
    ),
  },
  output: processSummary,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  run: ({ manager }, args) => manager.start(args),
});
