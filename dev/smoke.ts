/**
 * The smoke test of a Portal build, run on each release binary by
 * `.github/workflows/release.yml`, and usable on any command that starts
 * Portal:
 *
 * ```sh
 * deno run -A dev/smoke.ts dist/portal-linux-x64
 * deno run -A dev/smoke.ts deno run -A main.ts
 * ```
 *
 * It checks that `--version` prints deno.json's version, then starts the
 * server on stdio with the official MCP SDK client (in a temporary directory:
 * database and registry there), checks `initialize`, runs `echo` through
 * `process_start` and reads its output back with `process_read_new`. It ends
 * with `portal doctor`'s report, which it prints but does not judge.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import denoJson from "../deno.json" with { type: "json" };
import { callTool, endHost, type Json, runtimeDirOf } from "./portal_client.ts";
import { tempDir } from "./temp_dir.ts";
import { waitFor } from "./wait.ts";

/** `echo` is a program on POSIX, a shell built-in on Windows. */
const ECHO = Deno.build.os === "windows"
  ? { command: "cmd.exe", args: ["/d", "/c", "echo", "portal-smoke"] }
  : { command: "echo", args: ["portal-smoke"] };

if (import.meta.main) {
  const [command, ...args] = Deno.args;
  if (!command) {
    console.error(
      "usage: deno run -A dev/smoke.ts COMMAND [ARGS...]  (a command that starts Portal)",
    );
    Deno.exit(2);
  }
  const run = (extra: string[]) =>
    new Deno.Command(command, { args: [...args, ...extra], stdin: "null" }).output();

  const version = await run(["--version"]);
  const printed = new TextDecoder().decode(version.stdout).trim();
  check(version.success && printed === `portal ${denoJson.version}`, `--version: "${printed}"`);

  await using dir = await tempDir("portal-smoke-");
  const transport = new StdioClientTransport({
    command,
    args: [...args, "--db", `${dir.path}/records.db`, "--data-dir", `${dir.path}/data`],
    // Its host's socket goes into the temporary directory, and the host ends with the test.
    env: { ...Deno.env.toObject(), XDG_RUNTIME_DIR: runtimeDirOf(dir.path) },
    stderr: "inherit",
  });
  const client = new Client({ name: "portal-smoke", version: denoJson.version });
  await client.connect(transport);
  const server = client.getServerVersion();
  check(server?.name === "portal" && server.version === denoJson.version, "initialize", server);

  const { id } = await callTool(client, "process_start", ECHO);
  let output = "";
  await waitFor("echo's output", async () => {
    const page = await callTool(client, "process_read_new", { id });
    output += page.records.map((r: Json) => r.content).join("");
    return output;
  }, { until: (text) => text.includes("portal-smoke") });
  check(true, `process_start ${ECHO.command}, process_read_new`, output.trim());
  await client.close();
  await endHost(dir.path);

  const doctor = await run(["doctor", "--db", `${dir.path}/doctor.db`]);
  console.log(`doctor (exit ${doctor.code}):\n${new TextDecoder().decode(doctor.stdout)}`);
  console.log("smoke test passed");
}

function check(ok: boolean, what: string, detail?: unknown): void {
  if (!ok) {
    console.error(`smoke test failed: ${what}`, detail ?? "");
    Deno.exit(1);
  }
  console.log(`ok: ${what}${detail === undefined ? "" : ` ${JSON.stringify(detail)}`}`);
}
