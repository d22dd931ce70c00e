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
import { processState } from "../core/model/schema.ts";
import type { CallControl } from "../core/steps/step.ts";
import { ERROR_META_KEY, type ErrorData, type ErrorKind, PortalError } from "../errors.ts";
import { WAIT_MS } from "../limits.ts";
import { ChildTransport } from "./child_transport.ts";
import { linkFailure } from "./link_errors.ts";
import { SecretRelay } from "./secret_relay.ts";
import type { Transport } from "./transports.ts";

/** The bound on opening a link (ssh's ConnectTimeout is 10 s of it): the 15 s. */
export const OPEN_TIMEOUT_MS = 14_000;

/** The longest a relayed call may take: the longest wait, and then some for the link. */
const CALL_TIMEOUT_MS = WAIT_MS.max + 60_000;

export class RemoteLink {
  readonly host: string;
  /** The remote Portal's version (serverInfo). */
  readonly version: string;
  readonly #client: Client;
  readonly #transport: ChildTransport;
  readonly #ssh: boolean;
  readonly #secrets: SecretRelay;
  #closed = false;

  private constructor(
    host: string,
    ssh: boolean,
    client: Client,
    transport: ChildTransport,
    secrets: SecretRelay,
  ) {
    this.host = host;
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
    host: string,
    transport: Transport,
    env: Record<string, string>,
  ): Promise<RemoteLink> {
    let child: ChildTransport;
    try {
      child = new ChildTransport(transport.argv, env);
    } catch (error) {
      throw new PortalError(
        `Cannot run ${JSON.stringify(transport.argv[0])} to reach ${host}: ` +
          `${(error as Error).message}. Set PORTAL_SSH_COMMAND (or PORTAL_HOST_${host}).`,
        "unreachable",
        { host },
      );
    }
    // A form is all the remote may ask for: its secret_prompt, passed on to this side's person.
    const client = new Client({ name: "portal-remote", version: "0" }, {
      capabilities: { elicitation: { form: {} } },
    });
    const secrets = new SecretRelay();
    client.setRequestHandler("elicitation/create", (request) => secrets.answer(request));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      client.connect(child).then(() => "connected" as const, () => "failed" as const),
      child.exited.then(() => "exited" as const),
      new Promise<"late">((resolve) => timer = setTimeout(resolve, OPEN_TIMEOUT_MS, "late")),
    ]);
    clearTimeout(timer);
    if (outcome === "connected") {
      const info = client.getServerVersion();
      if (info?.name === "portal") {
        return new RemoteLink(host, transport.ssh, client, child, secrets);
      }
      await child.close();
      throw new PortalError(
        `What answers on ${host} is not Portal (it says it is ${JSON.stringify(info?.name)}). ` +
          "Set PORTAL_REMOTE_COMMAND to Portal's path there.",
        "unreachable",
        { host },
      );
    }
    if (outcome === "late") {
      await child.close();
      throw new PortalError(
        `${host} did not answer within ${OPEN_TIMEOUT_MS / 1000} s` +
          (child.stderr ? `: ${child.stderr}` : "") + ". Is the machine up, and Portal there?",
        "unreachable",
        { host },
      );
    }
    const status = await child.exited;
    throw new PortalError(
      linkFailure(host, transport.ssh, status.code, child.stderr),
      "unreachable",
      { host },
    );
  }

  /** Whether the link still carries calls. */
  get alive(): boolean {
    return !this.#closed && this.#transport.exit === undefined;
  }

  /**
   * Calls `name` on the remote Portal: its structured result, or a
   * {@link PortalError} with its error text (or with why the link ended).
   * A wait on process `id` (the local id) reports its progress through `control`.
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    control: CallControl = {},
    id?: number,
  ): Promise<Record<string, unknown>> {
    const { signal, onProgress, askSecret } = control;
    // The remote's progress (a long wait) goes on to this call's client, in the same words.
    const onprogress = onProgress && id !== undefined &&
      (({ progress, total, message }: Progress) =>
        onProgress({
          id,
          elapsedMs: progress,
          totalMs: total ?? 0,
          state: processState.options.find((state) => message?.includes(`; ${state}`)) ?? "running",
        }));
    return await this.#secrets.during(askSecret, async () => {
      let result;
      try {
        result = await this.#client.callTool(
          { name, arguments: args },
          {
            signal,
            timeout: CALL_TIMEOUT_MS,
            onprogress: onprogress || undefined,
            resetTimeoutOnProgress: true,
          },
        );
      } catch (error) {
        if (signal?.aborted) throw error;
        if (this.alive) {
          throw new PortalError(`${this.host}: ${(error as Error).message}`, "unreachable", {
            host: this.host,
          });
        }
        const status = await this.#transport.exited;
        throw new PortalError(
          linkFailure(this.host, this.#ssh, status.code, this.#transport.stderr),
          "unreachable",
          { host: this.host },
        );
      }
      const text = (result.content as { type: string; text?: string }[])
        .map((block) => block.text ?? "").join("\n");
      if (result.isError) {
        // Its kind and data as the remote Portal sent them (ids still the remote's).
        const { kind = "invalid", ...data } = (result._meta?.[ERROR_META_KEY] ?? {}) as {
          kind?: ErrorKind;
        } & ErrorData;
        throw new PortalError(`${this.host}: ${text}`, kind, { ...data, host: this.host });
      }
      return (result.structuredContent ?? {}) as Record<string, unknown>;
    });
  }

  /** Ends the link: the remote door's client has left. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#client.close().catch(() => {});
    await this.#transport.close();
  }
}
