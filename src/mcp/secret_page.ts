/**
 * The page where the person enters a secret that `secret_prompt` asks for by
 * URL-mode elicitation: the value goes from their browser to Portal, past the
 * MCP client and the model. It listens on 127.0.0.1 only, at a random path of
 * 256 bits (anything else is 404), takes one answer, posted from the page
 * itself (its own origin, or no `Origin`, as a non-browser client sends),
 * then stops listening. It loads nothing from elsewhere (its CSP allows nothing but posting its form
 * to itself), and may not be cached, framed or named in a `Referer`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openSecretPage } from "./secret_page.ts";
 *
 * const page = openSecretPage("Password for <db1>");
 * const form = await fetch(page.url);
 * assert.equal(form.headers.get("x-frame-options"), "DENY");
 * assert.match(await form.text(), /Password for &#60;db1&#62;.*type="password"/s);
 * const body = new URLSearchParams({ secret: "hunter2" });
 * const sent = await fetch(page.url, { method: "POST", body });
 * assert.match(await sent.text(), /close this tab/);
 * assert.equal(await page.secret, "hunter2");
 * await page.close();
 * await assert.rejects(fetch(page.url, { method: "POST", body }));
 * ```
 * @module
 */
import { SECRET_MAX_CHARS } from "../limits.ts";
import { generateToken, isOwnOrigin, sameInConstantTime } from "../http_guard.ts";

/** A page that waits for one secret. */
export interface SecretPage {
  /** Where the person enters it: give it to them, and to no one else. */
  readonly url: string;
  /** What they entered; settles once, when the form comes. */
  readonly secret: Promise<string>;
  /** Stops listening (after the answer to the form, if it is on its way). */
  close(): Promise<void>;
}

/** A form of a few KiB; more is not a form of this page. */
const BODY_MAX = 64 * 1024;

/** Every answer's headers: nothing kept, framed, leaked in a Referer, or loaded. */
const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/** Serves the page asking for `label` on 127.0.0.1, at a port the system picks. */
export function openSecretPage(label: string): SecretPage {
  const path = new TextEncoder().encode(`/${generateToken()}`);
  const secret = Promise.withResolvers<string>();
  let answered = false;
  let host = "";
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Deno's default prints the address on stdout, which a server keeps for the protocol.
    onListen: () => {},
    // Its default logs the error; the text might hold what was sent.
    onError: () => answer(500, "Something went wrong; nothing was received."),
  }, async (request) => {
    // A browser names the address it was given; DNS rebinding would name another.
    if (request.headers.get("host") !== host) return answer(403, "Not this server's name.");
    const asked = new TextEncoder().encode(new URL(request.url).pathname);
    if (!sameInConstantTime(asked, path)) return answer(404, "Not found.");
    if (answered) return answer(410, "This page has had its answer, and is gone.");
    if (request.method === "GET") return new Response(form(label), { headers: HEADERS });
    if (request.method !== "POST") return answer(405, "Only GET and POST.");
    const origin = request.headers.get("origin");
    if (origin !== null && !isOwnOrigin(origin, host)) {
      return answer(403, "The answer must come from this page; nothing was received.");
    }
    const value = await valueOf(request);
    if (value === undefined) return answer(400, "Nothing was entered: go back and enter it.");
    if (answered) return answer(410, "This page has had its answer, and is gone.");
    answered = true;
    secret.resolve(value);
    stop();
    return answer(200, "Received: Portal types it into the program. You can close this tab.");
  });
  host = `127.0.0.1:${server.addr.port}`;
  let stopped: Promise<void> | undefined;
  const stop = () => stopped ??= server.shutdown();
  return {
    url: `http://${host}${new TextDecoder().decode(path)}`,
    secret: secret.promise,
    close: stop,
  };
}

/** The `secret` field of a posted form, or undefined for none (or an empty one). */
async function valueOf(request: Request): Promise<string | undefined> {
  const type = request.headers.get("content-type") ?? "";
  // Browsers send the length of a form; a body without one could be endless.
  const length = Number(request.headers.get("content-length") ?? Infinity);
  if (!type.startsWith("application/x-www-form-urlencoded") || !(length <= BODY_MAX)) {
    return undefined;
  }
  return new URLSearchParams(await request.text()).get("secret") || undefined;
}

/** A short page saying `text`. */
function answer(status: number, text: string): Response {
  return new Response(html(`<p>${escape(text)}</p>`), { status, headers: HEADERS });
}

function form(label: string): string {
  return html(
    "<p>A program run by your AI agent through Portal asks for:</p>\n" +
      `<form method="post"><label>${escape(label)}<br>` +
      `<input type="password" name="secret" required autofocus autocomplete="off" ` +
      `maxlength="${SECRET_MAX_CHARS}"></label> <button>Send</button></form>\n` +
      "<p>What you enter is typed into that program. Neither the agent nor its MCP client " +
      "sees it, and Portal does not store it. This page takes one answer, then is gone.</p>",
  );
}

function html(body: string): string {
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width"><title>Portal: a secret</title>' +
    `</head><body>\n<h1>Portal</h1>\n${body}\n</body></html>\n`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
