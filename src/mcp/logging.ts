/**
 * The server's diagnostics, with two outlets: stderr, at the level of
 * `--log-level`, and MCP clients as `notifications/message`, each at the level
 * its client chose with `logging/setLevel` (until it chooses, `--log-level`).
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
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type LoggingLevel,
  LoggingLevelSchema,
  type RequestId,
  type SetLevelRequest,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

export type { LoggingLevel };

/** The MCP (syslog) levels, least severe first. */
export const LOG_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

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
   */
  session(server: McpServer, level: LoggingLevel = this.level): SessionLog {
    const session = new SessionLog(this, server, level, () => this.#sessions.delete(session));
    this.#sessions.add(session);
    return session;
  }
}

/** What one session's client hears, and what that session logs. */
export class SessionLog {
  #log: Log;
  #server: McpServer;
  #level: LoggingLevel;
  #close: () => void;

  constructor(log: Log, server: McpServer, level: LoggingLevel, close: () => void) {
    this.#log = log;
    this.#server = server;
    this.#level = level;
    this.#close = close;
    // Replaces the SDK's own handler, which keeps the level where we cannot read it.
    server.server.setRequestHandler(SetLevelRequestSchema, (request: SetLevelRequest) => {
      this.#level = request.params.level;
      return {};
    });
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
    if (severity(level) < severity(this.#level) || !this.#server.isConnected()) return;
    this.#server.server.notification(
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
