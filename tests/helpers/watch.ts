/**
 * The watch page's credential and socket as a test (or another local user's
 * program) holds them: the token a link carries in its fragment, and the
 * page's WebSocket opened with a token, its messages collected.
 *
 * @module
 */
import { waitFor } from "../../dev/wait.ts";

/** The token a watch link carries (in its fragment, `#token=`). */
export function linkToken(link: string): string {
  const token = new URLSearchParams(new URL(link).hash.slice(1)).get("token");
  if (!token) throw new Error(`no token in the watch link ${link}`);
  return token;
}

/** A page's socket: what it received (JSON messages), and how it ended. */
export interface WatchSocket extends AsyncDisposable {
  readonly socket: WebSocket;
  readonly messages: Record<string, unknown>[];
  /** Set once the socket has closed: its close code. */
  closed?: number;
  send(message: Record<string, unknown>): void;
  /** Waits for a message of `type` after the first `after` messages (default: any); returns it. */
  next(type: string, after?: number): Promise<Record<string, unknown>>;
}

/** Opens `/watch/socket` at `origin` (`http://127.0.0.1:PORT`), showing `token` as the page does. */
export function openWatchSocket(origin: string, token: string, query = ""): WatchSocket {
  const url = `${origin.replace(/^http/, "ws")}/watch/socket${query}`;
  const socket = new WebSocket(url, ["portal.watch", `portal.token.${token}`]);
  const watch: WatchSocket = {
    socket,
    messages: [],
    send: (message) => socket.send(JSON.stringify(message)),
    next: async (type, after = 0) => {
      const found = () => watch.messages.slice(after).find((m) => m.type === type);
      await waitFor(`a "${type}" message on the watch socket`, () => {
        if (watch.closed !== undefined) throw new Error(`the socket closed (${watch.closed})`);
        return found() !== undefined;
      });
      return found()!;
    },
    async [Symbol.asyncDispose]() {
      socket.close();
      await waitFor("the watch socket to close", () => watch.closed !== undefined);
    },
  };
  socket.onmessage = ({ data }) => {
    if (typeof data === "string") watch.messages.push(JSON.parse(data));
  };
  socket.onclose = ({ code }) => watch.closed = code;
  return watch;
}
