/**
 * The one place where services that live as long as the host are started
 * and stopped with it (a page a person watches a terminal on, say). A
 * service starts once the database is open and before the first client is
 * served, and stops before the host kills its programs and closes the
 * database. While something of a service needs the host (a page open in a
 * browser), it holds it ({@link HostContext.hold}), as a connected client
 * does; the host's grace starts only once nothing holds it.
 *
 * @module
 */
import type { ProcessPool } from "../core/process/pool.ts";
import type { ProgramRegistry } from "../core/registry/program_registry.ts";
import type { Log } from "../mcp/logging.ts";
import type { HostAddress } from "../host/address.ts";

/** What a service gets from the host. */
export interface HostContext {
  /** Every process of the host, every client's. */
  pool: ProcessPool;
  registry: ProgramRegistry;
  log: Log;
  address: HostAddress;
  /** Keeps the host up until the returned function is called (once). */
  hold(): () => void;
}

/** A service of the host. */
export interface HostService {
  readonly name: string;
  start(context: HostContext): void | Promise<void>;
  stop(): Promise<void>;
}

/** The services every host runs, in start order (stopped in reverse). */
export const HOST_SERVICES: readonly (() => HostService)[] = [];
