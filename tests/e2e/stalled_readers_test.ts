/**
 * Nothing a reader that stops reading does makes the host hold more without
 * bound: a `portal attach` terminal that stops reading while its program
 * floods (as Ctrl+S or a stalled ssh does; here a raw attach connection
 * that reads nothing) and reads again later, an attach frame that claims
 * more than the host reads, a client that never reads its replies. The
 * host's memory is its VmRSS (/proc), before and during; the timing figures
 * (other clients' calls meanwhile) are in bench/stalled_readers.ts.
 */
import { bigReply } from "../../dev/big_reply.ts";
import { hostLogs, type Json, Portal } from "../../dev/portal_client.ts";
import { childrenOf, procIo, procStatus } from "../../dev/process_table.ts";
import { RawAttach } from "../../dev/raw_attach.ts";
import { handshake, jsonLine, spawnServer } from "../../dev/raw_lines.ts";
import { waitFor } from "../../dev/wait.ts";
import { encodeLine } from "../../src/host/hello.ts";
import { REPLY_BACKLOG_MAX_BYTES } from "../../src/limits.ts";
import { VERSION } from "../../src/version.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { posixTest, type TestOptions } from "../helpers/platform.ts";
import { hostDir } from "../helpers/portal.ts";

/** The host's resident memory, in MB. */
const rssMB = (pid: number) => procStatus(pid, "VmRSS") / 2 ** 20;

/** Lets time pass for `ms`, sampling the host's memory; returns the largest sample. */
async function peakOver(host: number, ms: number): Promise<number> {
  const started = performance.now();
  let peak = 0;
  await waitFor(`${ms} ms of sampling`, () => {
    peak = Math.max(peak, rssMB(host));
    return performance.now() - started;
  }, { until: (elapsed) => elapsed >= ms, timeoutMs: ms + 10_000, intervalMs: 250 });
  return peak;
}

/**
 * A test on a host of its own (its memory is measured, its log read), with an agent's client
 * in the host's directory; every program the agent sees is ended after, whatever the outcome.
 */
function hostTest(
  name: string,
  fn: (agent: Portal) => Promise<void>,
  options: TestOptions = {},
): void {
  posixTest(name, async () => {
    await using dir = await hostDir();
    await using agent = await Portal.start({ dir: dir.path });
    try {
      await fn(agent);
    } finally {
      await agent.call("process_kill_all").catch(() => {});
    }
  }, options);
}

hostTest(
  "an attach that stops reading mid-flood leaves the host < 100 MB larger; reading, it gets the screen",
  async (agent) => {
    const flood = await agent.call("process_start", {
      command: "sh",
      args: ["-c", "read go; base64 /dev/urandom; echo FLOOD-OVER; exec cat"],
      pty: true,
      name: "flood",
      wait: "ready",
    });
    const host = agent.serverPid;
    using attached = await RawAttach.open(agent.dir, "flood");
    assertEquals(attached.welcome.process?.id, flood.id);
    await agent.call("process_write", { id: flood.id, content: "go\n", wait: "none" });
    const [base64] = await waitFor("base64 to run", () => childrenOf(flood.os_pid), {
      until: (children) => children.length > 0, // an empty list is no answer yet
    });
    const wrote = () => procIo(base64, "wchar");
    // The terminal follows the first 40 MB of the flood, as much as 4 s of it on a busy machine
    // (the host's own cost of a flood, its screen, records and heap, has grown meanwhile)...
    let followed = 0;
    for await (const frame of attached.frames(30_000)) {
      followed += frame.payload.length;
      if (followed >= 40e6) break;
    }
    assert(followed >= 40e6, `the terminal followed ${followed} bytes of the flood`);
    // ... then stops reading, as Ctrl+S does, for 64 MB more (4 times the bound on what it
    // gets below, 64 times what the host holds for it; a terminal sent all of it would get
    // far more). bench/stalled_readers.ts measures the same over a longer flood.
    const before = rssMB(host);
    const from = wrote();
    let peak = before;
    await waitFor("64 MB more of the flood", () => {
      peak = Math.max(peak, rssMB(host));
      return wrote() - from;
    }, { until: (bytes) => bytes >= 64e6, timeoutMs: 120_000, intervalMs: 250 });
    const flooded = wrote() - from;
    Deno.kill(base64, "SIGKILL");
    console.log(
      `host RSS ${before.toFixed(0)} MB when the terminal stopped reading, peak ` +
        `${peak.toFixed(0)} MB over ${(flooded / 1e6).toFixed(0)} MB of flood`,
    );
    assert(peak - before < 100, `the host grew by ${(peak - before).toFixed(0)} MB`);
    // Read again: what was sent before it stalled, then the screen as it stands now.
    let received = 0;
    let screen: Json;
    for await (const frame of attached.frames(20_000)) {
      received += frame.payload.length;
      if (frame.type !== "screen") continue;
      screen = JSON.parse(new TextDecoder().decode(frame.payload));
      if (screen.lines.includes("FLOOD-OVER")) break;
    }
    assertEquals(screen.lines.at(screen.cursor.row - 1), "FLOOD-OVER");
    assert(received < 16e6, `${received} bytes were queued for the stalled terminal`);
    // And it is live again: what the program prints now comes as output.
    await agent.call("process_write", { id: flood.id, content: "live again\n", wait: "none" });
    let text = "";
    for await (const frame of attached.frames(10_000)) {
      if (frame.type === "output") text += new TextDecoder().decode(frame.payload);
      if (text.includes("live again\r\nlive again")) break; // the echo, then cat's copy
    }
  },
  { only: "linux" },
);

hostTest(
  "an attach frame over the cap closes that connection at once; other clients' calls answer",
  async (agent) => {
    const cat = await agent.call("process_start", {
      command: "cat",
      pty: true,
      name: "cat",
      wait: "ready",
    });
    using attached = await RawAttach.open(agent.dir, "cat");
    // A header claiming 60 MiB of input, and only a first part of it.
    const header = new Uint8Array(5);
    header[0] = 0x49;
    new DataView(header.buffer).setUint32(1, 60 << 20);
    await attached.conn.write(header);
    // The host may have hung up already, which is what this tests: the write may break.
    await attached.conn.write(new Uint8Array(64 * 1024)).catch((error) => {
      if (
        !(error instanceof Deno.errors.BrokenPipe || error instanceof Deno.errors.ConnectionReset)
      ) {
        throw error;
      }
    });
    const frames: string[] = [];
    for await (const frame of attached.frames(5000)) frames.push(frame.type);
    assertEquals(frames, ["screen"], "the screen, then the host hung up");
    const step = await agent.call("process_write", { id: cat.id, content: "still here\n" });
    assert(step.output.includes("still here"), step.output);
    // The hello line has its own bound: a caller that never ends it is dropped too.
    const conn = await Deno.connect({
      transport: "unix",
      path: await RawAttach.socket(agent.dir),
    });
    await conn.write(encodeLine({ portal: VERSION, role: "ps" }));
    assert((await conn.read(new Uint8Array(1 << 16))) !== null, "ps is answered");
    conn.close();
  },
);

/** A door whose client writes `lines` after its initialize is answered, and then reads nothing. */
async function deafClient(
  dir: string,
  lines: unknown[],
): Promise<{ child: Deno.ChildProcess; stdin: WritableStreamDefaultWriter<Uint8Array> }> {
  const child = await spawnServer(dir);
  const stdin = child.stdin.getWriter();
  await handshake(stdin, child.stdout, "deaf");
  for (const line of lines) await stdin.write(jsonLine(line));
  return { child, stdin };
}

/** A `tools/call` request. */
function call(id: number, name: string, args: Json): Json {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

hostTest(
  "200 unread 1 MB replies leave the host < 100 MB larger; read later, every one arrives",
  async (agent) => {
    const big = await bigReply(agent);
    assert(big.size > 1e6 && big.size < 1.1e6, `one reply is ${big.size} bytes`);
    const host = agent.serverPid;
    const before = rssMB(host);
    let peak = 0;
    const sample = () => peak = Math.max(peak, rssMB(host));
    const ids = Array.from({ length: 200 }, (_, i) => 10 + i);
    const deaf = await deafClient(agent.dir, ids.map((id) => call(id, "process_read", big.read)));
    await waitFor("the host to stop taking the deaf client's requests", () => {
      sample();
      return hostLogs(agent.dir).includes("bytes of replies unread: what it sends is taken again");
    }, { timeoutMs: 30_000, intervalMs: 100 });
    // It has stopped: nothing more accrues while the client does not read.
    peak = Math.max(peak, await peakOver(host, 2000));
    const unread = peak;
    // Meanwhile the others' calls answer.
    assertEquals((await agent.call("process_inspect", { id: big.id })).status, "running");
    // It reads at last: every reply, whole.
    const answered: number[] = [];
    let pending = "";
    const decoder = new TextDecoder();
    for await (const chunk of deaf.child.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      for (let end; (end = pending.indexOf("\n")) >= 0;) {
        const reply = JSON.parse(pending.slice(0, end));
        pending = pending.slice(end + 1);
        assertEquals(reply.result?.structuredContent?.records?.length > 0, true, reply.error);
        answered.push(reply.id);
      }
      sample();
      if (answered.length === ids.length) break;
    }
    assertEquals(answered, ids);
    await deaf.stdin.close();
    assertEquals((await deaf.child.status).code, 0);
    console.log(
      `host RSS ${before.toFixed(0)} MB before, peak ${unread.toFixed(0)} MB unread, ` +
        `${peak.toFixed(0)} MB while they were read`,
    );
    assert(unread - before < 100, `the host grew by ${(unread - before).toFixed(0)} MB`);
  },
);

hostTest(
  "replies past the hard bound, to requests taken before, end the client that does not read them",
  async (agent) => {
    const gate = `${agent.dir}/gate`;
    assert((await new Deno.Command("mkfifo", { args: [gate] }).output()).success);
    // Each waits at the gate, then prints 1,000,000 characters: a reply of about 2 MB.
    const start = {
      command: "sh",
      args: ["-c", `read x < ${gate}; head -c 1000000 /dev/zero | tr '\\0' x`],
      keep: true,
      wait: "exit",
      max_chars: 1_000_000,
    };
    const count = Math.ceil(REPLY_BACKLOG_MAX_BYTES / 2e6) + 8;
    const deaf = await deafClient(
      agent.dir,
      Array.from({ length: count }, (_, i) => call(10 + i, "process_start", start)),
    );
    let exit: number | undefined;
    deaf.child.status.then(({ code }) => exit = code);
    await waitFor("every program to wait at the gate", async () => {
      const { processes } = await agent.call("process_list");
      return processes.filter((p: Json) => p.status === "running").length;
    }, { until: (n) => n === count, timeoutMs: 120_000, intervalMs: 200 });
    // Open the gate: every program ends at once, every reply is due at once.
    (await Deno.open(gate, { write: true })).close();
    // Generous: 42 programs and 84 MB of replies, on a machine that may be busy.
    await waitFor("the deaf client's door to be ended", () => exit !== undefined, {
      timeoutMs: 180_000,
      intervalMs: 100,
    });
    await deaf.child.stdout.cancel();
    assertEquals(exit, 0);
    assert(
      hostLogs(agent.dir).includes(`(over ${REPLY_BACKLOG_MAX_BYTES}): it is taken for gone`),
      "the host says why it ended the client",
    );
    // The others' calls answer; the programs it kept run on (they ended on their own).
    const { processes } = await agent.call("process_list");
    assertEquals(processes.length, count);
  },
);
