/**
 * The terminal views (MCP Apps) one client has open, by their tokens. A
 * view is opened by `process_watch` for one process, and its token, 256
 * random bits, is what each of the view's calls carries: it is looked up
 * among the views of the client that calls (its session), so it opens that
 * one process of that client and nothing else, and a token shown to another
 * client opens nothing. A view lives while its page polls: one that has not
 * called for {@link LEASE_MS} (its client closed it without a teardown, or the
 * client is gone) is closed, and the keyboard it held goes back to the agent.
 *
 * @module
 */
import { PortalError } from "../../errors.ts";
import { generateToken } from "../../http_guard.ts";
import type { ProcessManager } from "../../core/process/manager.ts";
import type { WatchedProcess } from "../../core/watch/watched_process.ts";
import { PolledView } from "../../core/watch/polled_view.ts";

/** A view that has not called for this long is closed (its page polls at least once a second). */
export const LEASE_MS = 15_000;
/** Views one client may have open; past it, the oldest closes. */
export const MAX_VIEWS = 16;

/** One open view: the process it shows, its feed, the end of its lease. */
export class AppView {
  readonly process: WatchedProcess;
  readonly feed: PolledView;
  readonly #close: () => void;
  #lease: ReturnType<typeof setTimeout> | undefined;

  constructor(process: WatchedProcess, close: () => void) {
    this.process = process;
    this.feed = new PolledView(process);
    this.#close = close;
    this.touch();
  }

  /** The page called: its lease starts again. */
  touch(): void {
    clearTimeout(this.#lease);
    const lease = setTimeout(this.#close, LEASE_MS);
    Deno.unrefTimer(lease);
    this.#lease = lease;
  }

  /** Stops following the process; the keyboard, if this view held it, goes back to the agent. */
  end(): void {
    clearTimeout(this.#lease);
    this.feed.close();
    this.process.giveBack(this.feed);
  }
}

/** The views of each client, by the session of its process manager. */
const bySession = new WeakMap<object, Map<string, AppView>>();

function viewsOf(manager: ProcessManager): Map<string, AppView> {
  const key = manager.session;
  let views = bySession.get(key);
  if (views === undefined) bySession.set(key, views = new Map());
  return views;
}

/** Opens a view of `process` for `manager`'s client; its token. */
export function openView(manager: ProcessManager, process: WatchedProcess): string {
  const views = viewsOf(manager);
  if (views.size >= MAX_VIEWS) {
    const [oldest, view] = views.entries().next().value!;
    views.delete(oldest);
    view.end();
  }
  const token = generateToken();
  const close = () => {
    if (views.get(token) !== view) return;
    views.delete(token);
    view.end();
  };
  const view = new AppView(process, close);
  views.set(token, view);
  return token;
}

/** The view of `token` among `manager`'s client's, its lease renewed; or a clear error. */
export function findView(manager: ProcessManager, token: string): AppView {
  const view = viewsOf(manager).get(token);
  if (view === undefined) {
    throw new PortalError(
      "This view is closed (its client ended, or it was idle): ask the agent to call " +
        "process_watch again for a new one.",
      "not_found",
    );
  }
  view.touch();
  return view;
}
