/**
 * The official MCP conformance suite (npm:@modelcontextprotocol/conformance,
 * server mode) against `--http`, through a proxy that adds the bearer token:
 * every scenario that applies to a tools-only server must pass, and those
 * that do not (they expect the suite's fixture tools, resources, prompts)
 * are named in tests/conformance/baseline.yml, each with why. The suite
 * fails on a listed scenario that starts passing too, so the list stays true.
 * It speaks 2025-11-25 (the suite has no 2026-07-28 server scenarios yet).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { assert } from "../helpers/assert.ts";
import { bearerProxy } from "../helpers/bearer_proxy.ts";
import { HttpPortal } from "../helpers/http_portal.ts";
import { posixTest } from "../helpers/platform.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
const BASELINE = fileURLToPath(new URL("conformance/baseline.yml", import.meta.url));
/** The suite is a test tool: its packages are locked with the other tools', not the server's. */
const TOOLS_LOCK = fileURLToPath(new URL("../../dev/deno.lock", import.meta.url));

posixTest("the MCP conformance suite passes every scenario that applies", async () => {
  await using server = await HttpPortal.start();
  await using proxy = bearerProxy(server.url, server.token);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--lock=${TOOLS_LOCK}`,
      SUITE,
      "server",
      "--url",
      proxy.url.href,
      "--expected-failures",
      BASELINE,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  const summary = text.slice(text.lastIndexOf("=== SUMMARY ==="));
  assert(code === 0, `the suite failed (exit ${code}):\n${summary}`);
});
