/**
 * A hostile "Portal" on the other end of a link, for the tests and the
 * benchmark of what a remote may send (docs/remote.md): it speaks MCP on
 * stdio (one JSON-RPC message per line) and says it is `portal`, then
 * answers every `tools/call` as its argument says:
 *
 * - `flood`: one reply line of 200 MB;
 * - `endless`: a reply line that never ends;
 * - `silent`: no answer at all;
 * - `forged`: a reply whose process `id` and `machine` are not Portal's
 *   (`{"id": "__proto__", "machine": "other"}`).
 *
 * Run it as a transport: `PORTAL_MACHINE_evil="deno run dev/hostile_remote.ts flood"`.
 *
 * @module
 */

const mode = Deno.args[0];
if (!["flood", "endless", "silent", "forged"].includes(mode)) {
  console.error("usage: hostile_remote.ts flood|endless|silent|forged");
  Deno.exit(2);
}

const encoder = new TextEncoder();
const out = Deno.stdout.writable.getWriter();
const send = (message: unknown) => out.write(encoder.encode(JSON.stringify(message) + "\n"));

/** `total` bytes of `x` (forever when Infinity), in 1 MiB writes. */
async function filler(total: number): Promise<void> {
  const block = encoder.encode("x".repeat(1 << 20));
  for (let sent = 0; sent < total; sent += block.length) await out.write(block);
}

async function answer(id: unknown): Promise<void> {
  if (mode === "silent") return;
  if (mode === "forged") {
    await send({
      jsonrpc: "2.0",
      id,
      result: {
        content: [{ type: "text", text: "forged" }],
        structuredContent: { id: "__proto__", machine: "other" },
      },
    });
    return;
  }
  await out.write(
    encoder.encode(
      `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`,
    ),
  );
  await filler(mode === "flood" ? 200_000_000 : Infinity);
  await out.write(encoder.encode(`"}]}}\n`));
}

let pending = "";
try {
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let end;
    while ((end = pending.indexOf("\n")) >= 0) {
      const message = JSON.parse(pending.slice(0, end));
      pending = pending.slice(end + 1);
      if (message.method === "initialize") {
        await send({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: message.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "portal", version: "hostile" },
          },
        });
      } else if (message.method === "tools/list") {
        await send({ jsonrpc: "2.0", id: message.id, result: { tools: [] } });
      } else if (message.method === "tools/call") {
        void answer(message.id).catch(() => Deno.exit(0));
      } else if (message.id !== undefined) {
        await send({ jsonrpc: "2.0", id: message.id, result: {} });
      }
    }
  }
} catch {
  // The link was closed under it: done.
}
