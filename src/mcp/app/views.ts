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
import { IdleTimeouts } from "../../core/process/idle_timeout.ts";
import type { WatchedProcess } from "../../core/watch/watched_process.ts";
import { PolledView } from "../../core/watch/polled_view.ts";

/** A view that has not called for this long is closed (its page polls at least once a second). */
export const LEASE_MS = 15_000;
/** Views one client may have open; past it, the oldest closes. */
export const MAX_VIEWS = 16;

/** One open view: the process it shows, and its feed. */
export interface AppView {
  process: WatchedProcess;
  feed: PolledView;
}

/** One client's open views, by token, and their leases. */
class ClientViews {
  readonly views = new Map<string, AppView>();
  readonly leases = new IdleTimeouts<string>((token) => this.close(token));

  /** Stops following the process; the keyboard, if the view held it, goes back to the agent. */
  close(token: string): void {
    const view = this.views.get(token);
    if (view === undefined) return;
    this.views.delete(token);
    this.leases.clear(token);
    view.feed.close();
    view.process.giveBack(view.feed);
  }
}

/** The views of each client, by the session of its process manager. */
const bySession = new WeakMap<object, ClientViews>();

function viewsOf(manager: ProcessManager): ClientViews {
  const key = manager.session;
  let client = bySession.get(key);
  if (client === undefined) bySession.set(key, client = new ClientViews());
  return client;
}

/** Opens a view of `process` for `manager`'s client; its token. */
export function openView(manager: ProcessManager, process: WatchedProcess): string {
  const client = viewsOf(manager);
  if (client.views.size >= MAX_VIEWS) client.close(client.views.keys().next().value!);
  const token = generateToken();
  client.views.set(token, { process, feed: new PolledView(process) });
  client.leases.arm(token, LEASE_MS);
  return token;
}

/** The view of `token` among `manager`'s client's, its lease renewed; or a clear error. */
export function findView(manager: ProcessManager, token: string): AppView {
  const client = viewsOf(manager);
  const view = client.views.get(token);
  if (view === undefined) {
    throw new PortalError(
      "This view is closed (its client ended, or it was idle): ask the agent to call " +
        "process_watch again for a new one.",
      "not_found",
    );
  }
  client.leases.arm(token, LEASE_MS);
  return view;
}
