/**
 * A throwaway home for the programs Portal runs during development. bash,
 * vim, python and less write history files into the user's home
 * (`~/.bash_history`, `~/.viminfo`, `~/.python_history`, `~/.lesshst`); a test
 * run must not touch the real ones, so every program it starts gets a home
 * inside a temporary directory instead.
 *
 * @example
 * ```ts
 * import { homeEnv } from "./home.ts";
 *
 * const env = { ...Deno.env.toObject(), ...homeEnv("/tmp/portal-home") };
 * ```
 * @module
 */

/**
 * The variables that make `dir` the home: `HOME` (POSIX), `USERPROFILE`
 * (Windows), and the XDG base directories under it, since programs that honour
 * `XDG_*` (less ≥ 590 keeps `lesshst` in `XDG_STATE_HOME`) would otherwise
 * write to the user's configured ones.
 */
export function homeEnv(dir: string): Record<string, string> {
  return {
    HOME: dir,
    USERPROFILE: dir,
    XDG_CONFIG_HOME: `${dir}/.config`,
    XDG_CACHE_HOME: `${dir}/.cache`,
    XDG_DATA_HOME: `${dir}/.local/share`,
    XDG_STATE_HOME: `${dir}/.local/state`,
  };
}
