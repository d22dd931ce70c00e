/**
 * What the secret tests share: a server that logs everything, the getpass
 * program on a PTY, the proof that it got a secret and showed it redacted
 * only, and the search of every byte the server wrote for a secret.
 *
 * @module
 */
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { type Json, onPty, Portal, type StartOptions } from "../../dev/portal_client.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";

/** Asks for a password, proves it got it (a hash), then prints it whole and in two writes. */
const GETPASS = `
import getpass, hashlib, sys, time
p = getpass.getpass("Password: ")
print("sha", hashlib.sha256(p.encode()).hexdigest()[:16])
print("you typed", p)
sys.stdout.write("half " + p[:5]); sys.stdout.flush(); time.sleep(0.3)
sys.stdout.write(p[5:] + " end\\n"); sys.stdout.flush()
input("done> ")
`;

/** A value no program or file has by chance. */
export function newSecret(): string {
  return `pw-${crypto.randomUUID().slice(0, 13)}-Zq`;
}

export async function sha16(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")
    .slice(0, 16);
}

/** A server that logs everything (stderr and the client at debug), and what it logged. */
export async function loggingPortal(options: StartOptions = {}): Promise<{
  portal: Portal;
  heard: string[];
}> {
  const portal = await Portal.start({
    ...options,
    captureStderr: true,
    args: ["--log-level", "debug"],
  });
  const heard: string[] = [];
  portal.client.setNotificationHandler(LoggingMessageNotificationSchema, (n: Json) => {
    heard.push(JSON.stringify(n.params));
  });
  await portal.client.setLoggingLevel("debug");
  return { portal, heard };
}

/** Where `needle` occurs among the files under `dir` (recursively). */
export async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const bytes = new TextEncoder().encode(needle);
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await filesHolding(path, needle));
    else if (entry.isFile && indexOf(await Deno.readFile(path), bytes) >= 0) found.push(path);
  }
  return found;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  for (let at = haystack.indexOf(needle[0]); at >= 0; at = haystack.indexOf(needle[0], at + 1)) {
    let i = 1;
    while (i < needle.length && haystack[at + i] === needle[i]) i++;
    if (i === needle.length) return at;
  }
  return -1;
}

/**
 * Stops the server (it commits and closes its files), then asserts that none
 * of `secrets` is in anything it wrote; the directory goes with `portal`.
 */
export async function assertNoTrace(
  portal: Portal,
  heard: string[],
  secrets: string[],
): Promise<void> {
  await portal.client.close();
  const files = [...Deno.readDirSync(portal.dir)].map((e) => e.name);
  assert(files.includes("records.db"), `the database is there: ${files}`);
  assert(portal.stderr.includes("[debug] tools: process_write"), "stderr logged at debug");
  assert(heard.some((h) => h.includes("process_write")), "the client heard the calls");
  for (const secret of secrets) {
    assertEquals(await filesHolding(portal.dir, secret), [], "files holding the secret");
    assert(!portal.stderr.includes(secret), "the secret is on stderr");
    assert(!heard.some((h) => h.includes(secret)), "the secret is in a log notification");
  }
}

/** What the helpers below need of a client: its tool calls (2025-11-25 or 2026-07-28). */
export interface Caller {
  call(name: string, args?: Record<string, unknown>): Promise<Json>;
}

/** Starts the getpass program on a PTY; returns its id once it asks. */
export async function getpass(portal: Caller): Promise<number> {
  const started = await portal.call("process_start", onPty("python3", ["-c", GETPASS]));
  assertEquals([started.state, started.output], ["waiting_for_secret", "Password: "]);
  return started.id;
}

/** The reply to the answer: the program got the secret, and printed it redacted only. */
export async function assertAnswered(portal: Caller, id: number, reply: Json, secret: string) {
  assertEquals(reply.state, "waiting_for_input");
  assertEquals(
    reply.output,
    `\nsha ${await sha16(secret)}\nyou typed [secret]\nhalf [secret] end\ndone> `,
  );
  const read = await portal.call("process_read", { id, source: "stdin", duration: 60_000 });
  assertEquals(read.records.length, 1);
  // One marker for the entry: neither its length nor its rhythm shows.
  assertEquals(read.records[0].content, "[secret]\r");
  const all = await portal.call("process_read", { id, duration: 60_000 });
  assert(!JSON.stringify(all).includes(secret), "process_read returns the secret");
  const screen = await portal.call("process_screen", { id });
  assertStringIncludes(screen.lines.join("\n"), "you typed [secret]");
  assert(!JSON.stringify(screen).includes(secret), "the screen shows the secret");
}
