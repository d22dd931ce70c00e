/**
 * Keys by name, as a terminal sends them: `Enter`, `Up`, `PageDown`, `F5`,
 * `Ctrl+C`, `Alt+B`, `Shift+Tab`, a single character, case-insensitive. The
 * cursor keys follow the mode the program set (DECCKM: `ESC O A` in
 * application mode, `ESC [ A` otherwise); modified special keys use xterm's
 * `CSI 1;m X` form; `Alt+` before a character or a plain key sends ESC first.
 * A name that is not a key is an error, never literal text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keyBytes } from "./keys.ts";
 *
 * const normal = { applicationCursorKeys: false, enter: "\r" };
 * assert.equal(keyBytes("ctrl+c", normal), "\x03");
 * assert.equal(keyBytes("Up", normal), "\x1b[A");
 * assert.equal(keyBytes("Up", { ...normal, applicationCursorKeys: true }), "\x1bOA");
 * assert.equal(keyBytes("Alt+B", normal), "\x1bb");
 * assert.equal(keyBytes("Shift+Tab", normal), "\x1b[Z");
 * assert.equal(keyBytes("Ctrl+Left", normal), "\x1b[1;5D");
 * assert.equal(keyBytes("F5", normal), "\x1b[15~");
 * assert.throws(() => keyBytes("hello", normal), /Unknown key "hello"/);
 * ```
 * @module
 */
import { PortalError, quote } from "../../errors.ts";

/** What the encoding depends on. */
export interface KeyModes {
  /** DECCKM is set: unmodified arrows, Home and End send `ESC O x`. */
  applicationCursorKeys: boolean;
  /** What Enter sends: `\r` on a terminal (its line discipline makes it `\n`), `\n` on pipes. */
  enter: string;
}

/** Keys whose final byte follows `ESC [` or, in application mode, `ESC O`. */
const CURSOR_KEYS: Record<string, string> = {
  up: "A",
  down: "B",
  right: "C",
  left: "D",
  home: "H",
  end: "F",
};

/** Keys sent as `ESC [ n ~`. */
const TILDE_KEYS: Record<string, number> = {
  insert: 2,
  delete: 3,
  pageup: 5,
  pagedown: 6,
  f5: 15,
  f6: 17,
  f7: 18,
  f8: 19,
  f9: 20,
  f10: 21,
  f11: 23,
  f12: 24,
};

/** F1–F4: `ESC O P`… unmodified, `ESC [ 1;m P`… with modifiers. */
const PF_KEYS: Record<string, string> = { f1: "P", f2: "Q", f3: "R", f4: "S" };

/** Keys that are one plain byte (Enter depends on the backend). */
const PLAIN_KEYS: Record<string, string> = {
  tab: "\t",
  escape: "\x1b",
  esc: "\x1b",
  backspace: "\x7f",
  space: " ",
};

/** Ctrl+ on the punctuation that has a control code of its own. */
const CTRL_PUNCTUATION: Record<string, string> = {
  "[": "\x1b",
  "\\": "\x1c",
  "]": "\x1d",
  "^": "\x1e",
  "_": "\x1f",
  "@": "\x00",
  "space": "\x00",
};

type Modifier = "ctrl" | "alt" | "shift";
/** The modifiers before a key: each one followed by `+` and something more (`Ctrl++` is Ctrl and +). */
const MODIFIERS = /^(?:(?:ctrl|alt|shift)\+(?=.))*/i;

/** The bytes a terminal sends for the key called `name` (see the module doc). */
export function keyBytes(name: string, modes: KeyModes): string {
  const modifiers = name.match(MODIFIERS)![0];
  const held = new Set(modifiers.toLowerCase().split("+").slice(0, -1) as Modifier[]);
  const bytes = encode(name.slice(modifiers.length), held, modes);
  if (bytes === null) throw unknownKey(name);
  return bytes;
}

function encode(key: string, held: Set<Modifier>, modes: KeyModes): string | null {
  const lower = key.toLowerCase();
  const special = specialKey(lower, held, modes);
  if (special !== undefined) return special;
  if (lower === "tab" && held.has("shift")) return held.size === 1 ? "\x1b[Z" : null;
  // A letter after a modifier names the key, not the character: Alt+B is Alt and b.
  const single = [...key].length === 1 ? (held.size > 0 ? lower : key) : undefined;
  let bytes: string | undefined = lower === "enter" || lower === "return"
    ? modes.enter
    : PLAIN_KEYS[lower] ?? single;
  if (bytes === undefined) return null;
  if (held.has("shift")) bytes = bytes.toUpperCase();
  if (held.has("ctrl")) {
    const control = controlCode(lower);
    if (control === null) return null;
    bytes = control;
  }
  return held.has("alt") ? "\x1b" + bytes : bytes;
}

/** Cursor, tilde and F1–F4 keys, with xterm's modifier parameter; undefined for others. */
function specialKey(key: string, held: Set<Modifier>, modes: KeyModes): string | undefined {
  const m = 1 + (held.has("shift") ? 1 : 0) + (held.has("alt") ? 2 : 0) +
    (held.has("ctrl") ? 4 : 0);
  if (key in CURSOR_KEYS) {
    if (m > 1) return `\x1b[1;${m}${CURSOR_KEYS[key]}`;
    return (modes.applicationCursorKeys ? "\x1bO" : "\x1b[") + CURSOR_KEYS[key];
  }
  if (key in TILDE_KEYS) return `\x1b[${TILDE_KEYS[key]}${m > 1 ? `;${m}` : ""}~`;
  if (key in PF_KEYS) return m > 1 ? `\x1b[1;${m}${PF_KEYS[key]}` : `\x1bO${PF_KEYS[key]}`;
  return undefined;
}

/** Ctrl+ a letter (A–Z) or one of `[ \ ] ^ _ @ Space`; null for anything else. */
function controlCode(key: string): string | null {
  if (/^[a-z]$/.test(key)) return String.fromCharCode(key.charCodeAt(0) - 96);
  return CTRL_PUNCTUATION[key] ?? null;
}

function unknownKey(name: string): PortalError {
  return new PortalError(
    `Unknown key ${quote(name)} in keys. Keys are Enter, Tab, Escape, Backspace, Delete, Insert, ` +
      "Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, F1–F12 or one character, " +
      "optionally after Ctrl+, Alt+ or Shift+ (Ctrl+C, Ctrl+], Alt+B, Shift+Tab, Ctrl+Left). " +
      "Send text with content.",
  );
}
