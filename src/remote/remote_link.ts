/**
 * One link to another machine's Portal: the SDK's MCP client (2025-11-25,
 * `initialize`) over the stdio of the command that reaches it
 * (transports.ts). The remote side is `portal` as a door to that user's
 * host: while the link lives, its programs are this link's; when it ends,
 * the unkept ones end there and the kept ones live on in that host.
 *
 * A remote Portal of another version is spoken to all the same: the link is
 * MCP, whose revision both sides agree at `initialize`, and every call is
 * the remote's to answer; its version is told in process_inspect
 * (`remote_version`) so a reply worded differently can be understood.
 *
 * @module
 */
import { Client, type Progress } from "@modelcontextprotocol/client";
import { processState, PROGRESS_STATE_META } from "../core/model/schema.ts";
import type { CallControl } from "../core/steps/step.ts";
import { withTimeout } from "../async.ts";
import { ERROR_META_KEY, type ErrorData, type ErrorKind, PortalError } from "../errors.ts";
import { MAX_TIMEOUT_MS, WAIT_MS } from "../limits.ts";
import { ChildTransport } from "./child_transport.ts";
import { SecretRelay } from "./secret_relay.ts";
import type { Transport } from "./transports.ts";

/**
 * The remote Portal's own tool error: its words, unchanged (they name its own ids), its kind and
 * data as it sent them (ids still its own), and the machine that said them.
 */
export class RemoteRefusal extends PortalError {
  readonly said: string;

  constructor(machine: string, said: string, kind: ErrorKind, data: ErrorData) {
    super(`${machine}: ${said}`, kind, { ...data, machine });
    this.said = said;
  }
}

/** The bound on opening a link (ssh's ConnectTimeout is 10 s of it): the 15 s. */
export const OPEN_TIMEOUT_MS = 14_000;

/**
 * What a relayed call may take beyond its own wait (`wait_ms`, else the default): the remote's
 * work around the wait and the reply's way back. A remote that says nothing longer than that
 * (while no person is being asked for a secret) fails the call.
 */
export const CALL_MARGIN_MS = 10_000;

export class RemoteLink {
  readonly machine: string;
  /** The remote Portal's version (serverInfo). */
  readonly version: string;
  readonly #client: Client;
  readonly #transport: ChildTransport;
  readonly #ssh: boolean;
  readonly #secrets: SecretRelay;
  #closed = false;

  private constructor(
    machine: string,
    ssh: boolean,
    client: Client,
    transport: ChildTransport,
    secrets: SecretRelay,
  ) {
    this.machine = machine;
    this.#secrets = secrets;
    this.#ssh = ssh;
    this.#client = client;
    this.#transport = transport;
    this.version = client.getServerVersion()?.version ?? "unknown";
  }

  /**
   * Runs `transport` and speaks MCP to what answers: a link, or a
   * {@link PortalError} saying why not, within {@link OPEN_TIMEOUT_MS}.
   */
  static async open(
    machine: string,
    transport: Transport,
    env: Record<string, string>,
  ): Promise<RemoteLink> {
    let child: ChildTransport;
    try {
      child = new ChildTransport(transport.argv, env);
    } catch (error) {
      throw unreachable(
        machine,
        `Cannot run ${JSON.stringify(transport.argv[0])} to reach ${machine}: ` +
          `${(error as Error).message}. Set PORTAL_SSH_COMMAND (or PORTAL_MACHINE_${machine}).`,
      );
    }
    // A form is all the remote may ask for: its secret_prompt, passed on to this side's person.
    const client = new Client({ name: "portal-remote", version: "0" }, {
      capabilities: { elicitation: { form: {} } },
    });
    const secrets = new SecretRelay();
    client.setRequestHandler("elicitation/create", (request) => secrets.answer(request));
    const outcome = await withTimeout(
      Promise.race([
        client.connect(child).then(() => "connected" as const, () => "failed" as const),
        child.exited.then(() => "exited" as const),
      ]),
      OPEN_TIMEOUT_MS,
      "late" as const,
    );
    if (outcome === "connected") {
      const info = client.getServerVersion();
      if (info?.name === "portal") {
        return new RemoteLink(machine, transport.ssh, client, child, secrets);
      }
      await child.close();
      throw unreachable(
        machine,
        `What answers on ${machine} is not Portal (it says it is ${JSON.stringify(info?.name)}). ` +
          "Set PORTAL_REMOTE_COMMAND to Portal's path there.",
      );
    }
    if (outcome === "late") {
      await child.close();
      throw unreachable(
        machine,
        `${machine} did not answer within ${OPEN_TIMEOUT_MS / 1000} s` +
          (child.stderr ? `: ${child.stderr}` : "") + ". Is the machine up, and Portal there?",
      );
    }
    throw await ended(machine, transport.ssh, child);
  }

  /** Whether the link still carries calls. */
  get alive(): boolean {
    return !this.#closed && this.#transport.exit === undefined;
  }

  /**
   * Calls `name` on the remote Portal: its structured result, or a
   * {@link PortalError} with its error text (or with why the link ended),
   * within the call's wait and {@link CALL_MARGIN_MS} (time a person spends
   * answering the remote's secret_prompt aside).
   * A wait on process `id` (the local id) reports its progress through `control`.
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    control: CallControl = {},
    id?: number,
  ): Promise<Record<string, unknown>> {
    const { onProgress, askSecret } = control;
    // The remote's progress (a long wait) goes on to this call's client; the program's state
    // comes structured (a remote too old to send it reads as running).
    const onprogress = onProgress && id !== undefined &&
      (({ progress, total, _meta }: Progress & { _meta?: Record<string, unknown> }) => {
        const state = processState.safeParse(_meta?.[PROGRESS_STATE_META]);
        onProgress({
          id,
          elapsedMs: progress,
          totalMs: total ?? 0,
          state: state.success ? state.data : "running",
        });
      });
    const waitMs = typeof args.wait_ms === "number" ? args.wait_ms : WAIT_MS.default;
    const late = this.#deadline(waitMs + CALL_MARGIN_MS);
    const signal = control.signal ? AbortSignal.any([control.signal, late.signal]) : late.signal;
    const label = typeof args.secret_prompt === "string" ? args.secret_prompt : undefined;
    return await this.#secrets.during(askSecret, label, async () => {
      let result;
      try {
        result = await this.#client.callTool(
          { name, arguments: args },
          // The deadline is this link's own (it stops while a person is asked), not the SDK's.
          { signal, timeout: MAX_TIMEOUT_MS, onprogress: onprogress || undefined },
        );
      } catch (error) {
        if (control.signal?.aborted) throw error;
        if (late.signal.aborted) {
          throw new PortalError(
            `${this.machine} did not answer ${name} within ${(waitMs + CALL_MARGIN_MS) / 1000} s ` +
              `(its wait of ${waitMs / 1000} s and ${CALL_MARGIN_MS / 1000} s for the link): the ` +
              "call there was cancelled. Try again; if it keeps failing, that machine or its " +
              "Portal is stuck.",
            "timeout",
            { machine: this.machine },
          );
        }
        if (this.alive) {
          throw unreachable(this.machine, `${this.machine}: ${(error as Error).message}`);
        }
        throw await ended(this.machine, this.#ssh, this.#transport);
      } finally {
        late.clear();
      }
      const text = (result.content as { type: string; text?: string }[])
        .map((block) => block.text ?? "").join("\n");
      if (result.isError) {
        // Its kind and data as the remote Portal sent them (ids still the remote's); one from
        // before the `io.portal/` prefix said `portal/error`.
        const meta = result._meta ?? {};
        const { kind = "invalid", ...data } =
          (meta[ERROR_META_KEY] ?? meta["portal/error"] ?? {}) as {
            kind?: ErrorKind;
          } & ErrorData;
        throw new RemoteRefusal(this.machine, text, kind, data);
      }
      return (result.structuredContent ?? {}) as Record<string, unknown>;
    });
  }

  /**
   * A signal that aborts after `ms`, the time a person spends answering one of the remote's
   * questions aside (each answer gives the call its `ms` again).
   */
  #deadline(ms: number): { signal: AbortSignal; clear(): void } {
    const late = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const arm = (after: number, asked: number) => {
      timer = setTimeout(() => {
        if (this.#secrets.asking) arm(1000, asked);
        else if (this.#secrets.asked !== asked) arm(ms, this.#secrets.asked);
        else late.abort();
      }, after);
    };
    arm(ms, this.#secrets.asked);
    return { signal: late.signal, clear: () => clearTimeout(timer) };
  }

  /** Ends the link: the remote door's client has left. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#client.close().catch(() => {});
    await this.#transport.close();
  }
}

/** Another machine could not be reached or used: `message`, of kind `unreachable`. */
function unreachable(machine: string, message: string): PortalError {
  return new PortalError(message, "unreachable", { machine });
}

/**
 * Why the link to `machine` through `child` ended, once its command has exited: this side
 * ended it for what it sent ({@link ChildTransport.failure}), or {@link linkFailure}.
 */
async function ended(machine: string, ssh: boolean, child: ChildTransport): Promise<PortalError> {
  const { code } = await child.exited;
  return unreachable(
    machine,
    child.failure
      ? `The link to ${machine} is ended: ${child.failure}. Check what answers there ` +
        `(PORTAL_MACHINE_${machine} or PORTAL_REMOTE_COMMAND); the next call opens the link again.`
      : linkFailure(machine, ssh, code, child.stderr),
  );
}

/** Where the docs say how to set a machine up. */
const DOCS = "docs/remote.md";

/**
 * The message for a link to `machine` whose command exited with `code`, having said `stderr`:
 * why a link to another machine's Portal could not open or has ended, in words an agent can
 * act on (ssh's own message and the machine, then what to do: set up a key, install Portal
 * there, name its path).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { linkFailure } from "./remote_link.ts";
 *
 * const auth = linkFailure("db1", true, 255, "me@db1: Permission denied (publickey,password).");
 * assert.match(auth, /Permission denied.*ssh-copy-id/s);
 * assert.match(linkFailure("db1", true, 127, "bash: line 1: portal: command not found"), /remote install db1/);
 * ```
 */
export function linkFailure(
  machine: string,
  ssh: boolean,
  code: number | null,
  stderr: string,
): string {
  const said = stderr === "" ? "" : `: ${lastLines(stderr)}`;
  if (
    ssh && /permission denied|no more authentication methods|host key verification/i.test(stderr)
  ) {
    return `ssh could not log in to ${machine}${said}. Portal's ssh runs with BatchMode=yes: it ` +
      "cannot type a password or accept a new host key. Set up a key (ssh-keygen, then " +
      `ssh-copy-id ${machine}; accept the host key once with ssh ${machine} true) or start \`ssh\` ` +
      "itself with process_start (pty: true) and answer its prompts with secret_prompt. " +
      `See ${DOCS}.`;
  }
  if (code === 127 || /command not found|not found|no such file/i.test(stderr)) {
    return `${machine} has no Portal to run${said}. Set it up with one command, run by a person ` +
      `here: \`portal remote install ${machine}\` (it copies Portal, and Deno if the machine has ` +
      "none, through ssh; nothing is downloaded there), or PORTAL_REMOTE_INSTALL=auto in " +
      "Portal's environment to do so at first use; or set PORTAL_REMOTE_COMMAND to Portal's " +
      `path there. See ${DOCS}.`;
  }
  if (ssh && code === 255) {
    return `ssh cannot reach ${machine}${said}. Check the name (an alias of your ssh config, ` +
      `user@host or user@host:port) and that the machine is up.`;
  }
  return `The link to ${machine} ended (exit ${code ?? "by a signal"})${said}.`;
}

/** The last three lines of `text`, joined: what ssh said last says why. */
function lastLines(text: string): string {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").slice(-3)
    .join(" ");
}
