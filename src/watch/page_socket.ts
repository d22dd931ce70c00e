/**
 * One open watch page, through its WebSocket: it gets the list of processes
 * (again whenever it changes), and for the process it watches a
 * {@link LiveFeed} (the screen as JSON, the program's bytes as binary
 * frames); it sends which process to watch, Take over, Give back and the
 * person's keys, which reach the program only while this page holds the
 * keyboard. Closing the page gives the keyboard back. A page that does not
 * take what is sent (a stalled browser or link) is not queued for without
 * bound: the feed sends pictures instead of bytes past
 * {@link BACKLOG_BYTES}, and the list waits until the page has caught up.
 *
 * Messages to the page: `processes`, `screen`, `resize`, `control`, `error`
 * (JSON), and binary frames of output. From the page: `watch`, `take_over`,
 * `give_back`, `input`.
 *
 * @module
 */
import { PortalError } from "../errors.ts";
import { CONTENT_MAX_CHARS } from "../limits.ts";
import type { WatchedProcess } from "../core/watch/watched_process.ts";
import { BACKLOG_BYTES, type FeedSink, LiveFeed } from "../core/watch/live_feed.ts";
import type { WatchScope } from "./scope.ts";

/** How often the list is looked at for changes (states change without events). */
const LIST_MS = 1000;

type FromPage =
  | { type: "watch"; id: number }
  | { type: "take_over" }
  | { type: "give_back" }
  | { type: "input"; data: string };

/** Serves one page over `socket`; ends when the socket closes. */
export function servePage(socket: WebSocket, scope: WatchScope): void {
  /** This page, as the processes know it when it holds their keyboard. */
  const page = {};
  let watched: { process: WatchedProcess; feed: LiveFeed } | null = null;
  let lastList = "";

  const send = (message: Record<string, unknown>) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const sendList = () => {
    // A page that has not taken what was sent gets the list as it is then, once it has.
    if (socket.bufferedAmount > BACKLOG_BYTES) return;
    const list = JSON.stringify({ type: "processes", label: scope.label, processes: scope.list() });
    if (list !== lastList && socket.readyState === WebSocket.OPEN) socket.send(list);
    lastList = list;
  };
  const unwatch = () => {
    if (watched === null) return;
    watched.feed.close();
    watched.process.giveBack(page);
    watched = null;
  };
  const watch = (id: number) => {
    unwatch();
    const process = scope.find(id);
    const sink: FeedSink = {
      get backlog() {
        return socket.bufferedAmount;
      },
      screen: (screen) => send({ type: "screen", id, ...screen }),
      output: (bytes) => socket.readyState === WebSocket.OPEN && socket.send(bytes),
      resize: (cols, rows) => send({ type: "resize", id, cols, rows }),
      control: (holder, controlledBy) => {
        send({ type: "control", id, controlled_by: controlledBy, mine: holder === page });
        sendList();
      },
      ended: sendList,
    };
    watched = { process, feed: new LiveFeed(process, sink) };
  };

  const act = (message: FromPage) => {
    if (message.type === "watch") return watch(message.id);
    if (watched === null) throw new PortalError("Choose a process first.", "conflict");
    if (message.type === "take_over") watched.process.takeOver(page);
    else if (message.type === "give_back") watched.process.giveBack(page);
    else if (message.type === "input") watched.process.typeAsPerson(page, message.data);
  };

  socket.onopen = sendList;
  socket.onmessage = ({ data }) => {
    try {
      act(parse(data));
    } catch (error) {
      if (!(error instanceof PortalError)) throw error;
      // An answer to a page that sends and does not read would pile up: past the bound, none.
      if (socket.bufferedAmount <= BACKLOG_BYTES) send({ type: "error", message: error.message });
    }
  };
  const timer = setInterval(sendList, LIST_MS);
  const close = () => {
    clearInterval(timer);
    unwatch();
    scope.pages.delete(socket);
  };
  socket.onclose = close;
  socket.onerror = close;
  scope.pages.add(socket);
}

/** A message from the page, checked. */
function parse(data: unknown): FromPage {
  if (typeof data !== "string" || data.length > CONTENT_MAX_CHARS + 100) {
    throw new PortalError("The page sent a message this server does not take.");
  }
  let message;
  try {
    message = JSON.parse(data);
  } catch {
    throw new PortalError("The page sent a message that is not JSON.");
  }
  const ok = (message?.type === "watch" && Number.isInteger(message.id)) ||
    message?.type === "take_over" || message?.type === "give_back" ||
    (message?.type === "input" && typeof message.data === "string");
  if (!ok) throw new PortalError("The page sent a message this server does not take.");
  return message;
}
