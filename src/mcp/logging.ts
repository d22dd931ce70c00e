/**
 * The server's diagnostics, with two outlets: stderr, at the level of
 * `--log-level`, and MCP clients as `notifications/message`, each at the level
 * its client chose with `logging/setLevel` (until it chooses, `--log-level`);
 * a 2026-07-28 client, at the level each request names in its `_meta`.
 * What concerns the whole server (a stray failure) reaches every session;
 * what a session did (its tool calls) reaches only that session, so HTTP
 * sessions learn nothing of each other. Nothing here,
 * or anywhere in the server, writes to stdout: on stdio that is the protocol.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Log } from "./logging.ts";
 *
 * const lines: string[] = [];
 * const log = new Log("warning", (line) => lines.push(line));
 * log.log("info", "server", "not shown: below warning");
 * log.log("error", "server", "shown");
 * assert.deepEqual(lines, ["portal [error] server: shown"]);
 * ```
 * @module
 */
import type { LoggingLevel, RequestId, Server } from "@modelcontextprotocol/server";

export type { LoggingLevel };

/** The MCP (syslog) levels, least severe first. */
export const LOG_LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

const severity = (level: LoggingLevel) => LOG_LEVELS.indexOf(level);

/** The diagnostics of one server process, shared by all its sessions. */
export class Log {
  /** The stderr threshold, and every session's until its client sets one. */
  readonly level: LoggingLevel;
  #write: (line: string) => void;
  #sessions = new Set<SessionLog>();

  /** `write` takes each line for stderr; tests pass their own. */
  constructor(level: LoggingLevel, write: (line: string) => void = (l) => console.error(l)) {
    this.level = level;
    this.#write = write;
  }

  /** Logs what concerns the whole server: to stderr and to every session. */
  log(level: LoggingLevel, logger: string, message: string): void {
    this.stderr(level, logger, message);
    for (const session of this.#sessions) session.notify(level, logger, message);
  }

  /** Logs to stderr only, as every message does when its level is high enough. */
  stderr(level: LoggingLevel, logger: string, message: string): void {
    if (severity(level) >= severity(this.level)) {
      this.#write(`portal [${level}] ${logger}: ${message}`);
    }
  }

  /**
   * The log of one session, whose client is `server`'s: it answers the
   * client's `logging/setLevel` and carries this log to it until closed.
   * A 2026-07-28 server (`modern`) hears only of its own requests: it is
   * not told what concerns the whole server, and needs no closing.
   */
  session(server: Server, level: LoggingLevel = this.level, modern = false): SessionLog {
    const close = () => this.#sessions.delete(session);
    const session = new SessionLog(this, server, level, { modern, close });
    if (!modern) this.#sessions.add(session);
    return session;
  }
}

/**
 * What one session's client hears, and what that session logs. A client of
 * MCP 2026-07-28 has no session and no `logging/setLevel`: it hears only
 * about the requests that ask for it, at the level their `_meta` names
 * (`io.modelcontextprotocol/logLevel`), and nothing that concerns the whole
 * server.
 */
export class SessionLog {
  #log: Log;
  #server: Server;
  #level: LoggingLevel;
  #close: () => void;
  /** This session's client speaks 2026-07-28: messages go only to the requests that ask. */
  readonly #modern: boolean;
  /** The requests in progress of a 2026-07-28 client that asked for messages, and their levels. */
  #asked = new Map<RequestId, LoggingLevel>();

  constructor(
    log: Log,
    server: Server,
    level: LoggingLevel,
    options: { modern: boolean; close: () => void },
  ) {
    this.#log = log;
    this.#server = server;
    this.#level = level;
    this.#modern = options.modern;
    this.#close = options.close;
    // Replaces the SDK's own handler, which keeps the level where we cannot read it.
    server.setRequestHandler("logging/setLevel", (request) => {
      this.#level = request.params.level;
      return {};
    });
  }

  /**
   * Lets messages about request `id` of a 2026-07-28 client through at
   * `level` and above until the returned function is called (the request
   * is answered); `level` undefined: the request did not ask, none go.
   */
  ask(id: RequestId, level: LoggingLevel | undefined): () => void {
    if (level === undefined || !LOG_LEVELS.includes(level)) return () => {};
    this.#asked.set(id, level);
    return () => this.#asked.delete(id);
  }

  /**
   * Logs what this session did: to stderr and to this session's client only.
   * `requestId` ties the message to the request it is about, so over HTTP it
   * travels on that request's stream, ahead of the reply.
   */
  log(level: LoggingLevel, logger: string, message: string, requestId?: RequestId): void {
    this.#log.stderr(level, logger, message);
    this.notify(level, logger, message, requestId);
  }

  /** Sends the message to this session's client if its level lets it through. */
  notify(level: LoggingLevel, logger: string, message: string, requestId?: RequestId): void {
    const threshold = this.#modern
      ? (requestId === undefined ? undefined : this.#asked.get(requestId))
      : this.#level;
    if (threshold === undefined || severity(level) < severity(threshold)) return;
    if (this.#server.transport === undefined) return;
    this.#server.notification(
      { method: "notifications/message", params: { level, logger, data: message } },
      { relatedRequestId: requestId },
      // A client that went away cannot be told so; its session ends on its own.
    ).catch(() => {});
  }

  /** Stops this log reaching the session (it has ended). */
  close(): void {
    this.#close();
  }
}
