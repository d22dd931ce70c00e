import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { callTool, endHost, hostLogs, type Json, Portal } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { waitFor } from "../../dev/wait.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { posixTest } from "../helpers/platform.ts";
import { RawStdioTransport, spawnServer } from "../../dev/raw_lines.ts";

interface Heard {
  level: string;
  logger: string;
  data: string;
}

/** Keeps every notifications/message the client receives. */
function listen(client: Client): Heard[] {
  const heard: Heard[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n: Json) => {
    heard.push(n.params);
  });
  return heard;
}

posixTest(
  "logging/setLevel: the client hears its level and above; stderr keeps --log-level",
  async () => {
    await using portal = await Portal.start({ captureStderr: true });
    const heard = listen(portal.client);
    assertEquals(portal.client.getServerCapabilities()?.logging, {});

    await portal.client.setLoggingLevel("info");
    await portal.call("process_list"); // logged at debug
    await portal.fail("process_kill", { id: 999 }); // logged at info
    await waitFor("the refusal, at info", () => heard.length > 0);
    assertEquals(heard.length, 1, JSON.stringify(heard));
    assertEquals([heard[0].level, heard[0].logger], ["info", "tools"]);
    assertMatch(heard[0].data, /^process_kill \(process 999\) refused: No process with id 999/);

    await portal.client.setLoggingLevel("warning");
    await portal.fail("process_kill", { id: 998 }); // info: below warning
    await portal.client.setLoggingLevel("debug");
    await portal.call("process_list");
    await waitFor("process_list's debug line", () => heard.length > 1);
    // One stream, in order: had the refusal of 998 been sent, it would have come first.
    assertEquals(heard.slice(1), [{ level: "debug", logger: "tools", data: "process_list: ok" }]);

    // stderr has the same messages at the server's level (info by default), whatever clients chose.
    const stderr = await waitFor("both refusals on stderr", () => portal.stderr, {
      until: (text) => text.includes("process 998"),
    });
    assertStringIncludes(stderr, "portal [info] tools: process_kill (process 999) refused: ");
    assertStringIncludes(stderr, "portal [info] tools: process_kill (process 998) refused: ");
    assert(!stderr.includes("[debug]"), stderr);
  },
);

posixTest("--log-level sets stderr's level and a client's until it chooses", async () => {
  await using portal = await Portal.start({ captureStderr: true, args: ["--log-level", "debug"] });
  const heard = listen(portal.client);
  await portal.call("process_list");
  await waitFor("process_list's debug line", () => heard.length > 0);
  assertEquals(heard, [{ level: "debug", logger: "tools", data: "process_list: ok" }]);
  await waitFor("the same line on stderr", () => portal.stderr, {
    until: (text) => text.includes("portal [debug] tools: process_list: ok\n"),
  });
});

posixTest(
  "stdout carries JSON-RPC only, whatever the programs write to their terminal",
  async () => {
    await using dir = await tempDir();
    const server = await spawnServer(dir.path, { args: ["--log-level", "debug"], stderr: true });
    let stderr = "";
    const stderrRead = server.stderr.pipeThrough(new TextDecoderStream())
      .pipeTo(new WritableStream({ write: (text) => void (stderr += text) }));
    const transport = new RawStdioTransport(server);
    const client = new Client({ name: "raw-stdout-test", version: "0.0.0" });
    await client.connect(transport);

    const script = "echo to-tty > /dev/tty; echo out; echo err >&2";
    const outputs: Record<string, string> = {};
    for (const pty of [true, false]) {
      const { id } = await callTool(client, "process_start", {
        command: "sh",
        args: ["-c", script],
        pty,
      });
      let text = "";
      await waitFor(`the output of the ${pty ? "PTY" : "pipe"} program`, async () => {
        // Status first: once it has ended, a read after it holds the last of its output.
        const ended = (await callTool(client, "process_inspect", { id })).status !== "running";
        const page = await callTool(client, "process_read_new", { id });
        text += page.records.map((r: Json) => r.content).join("");
        return ended && page.records.length === 0;
      });
      outputs[pty ? "pty" : "pipes"] = text;
    }
    assertEquals(outputs.pty, "to-tty\nout\nerr\n");
    // Pipes have no terminal: sh reports that on stderr, and the rest arrives as usual.
    assertMatch(outputs.pipes, /out\n/);
    assertMatch(outputs.pipes, /err\n/);
    await client.close();
    await server.status;
    await stderrRead;
    // The diagnostics went to stderr: the host's, which is its log.
    assertStringIncludes(stderr + hostLogs(dir.path), "portal [debug] tools: process_start: ok\n");
    await endHost(dir.path);

    assert(transport.lines.length >= 10, `only ${transport.lines.length} lines`);
    for (const line of transport.lines) {
      const message = JSON.parse(line);
      assertEquals(message.jsonrpc, "2.0", line);
    }
  },
);
