/**
 * Every relative link of the documentation resolves: README.md,
 * CONTRIBUTING.md, CHANGELOG.md, llms-install.md and docs/**, each link to a
 * file that exists and each `#anchor` to a heading of its page (as GitHub
 * makes an anchor of a heading). Run by `deno task check`; exits 1 with one
 * line per broken link.
 *
 *     deno run -A dev/check_links.ts
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The pages checked, relative to the repository. */
export async function pages(): Promise<string[]> {
  const found = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "llms-install.md"];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(join(ROOT, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".md")) found.push(path);
    }
  };
  await walk("docs");
  return found.sort();
}

/** A page's text without its code: fenced blocks and inline code spans. */
function withoutCode(text: string): string {
  return text.replace(/^(```+|~~~+)[^\n]*\n[\s\S]*?^\1\s*$/gm, "").replace(/`+[^`\n]*`+/g, "");
}

/** GitHub's anchor for each heading of `text`, duplicates numbered. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const prose = text.replace(/^(```+|~~~+)[^\n]*\n[\s\S]*?^\1\s*$/gm, "");
  for (const [, heading] of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** The link targets of a page: inline links and images, and reference definitions. */
export function targets(text: string): string[] {
  const prose = withoutCode(text);
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const defined = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+".*")?\s*$/gm)].map((m) =>
    m[1]
  );
  return [...inline, ...defined];
}

/** Each broken link of `page` (relative to the repository), as a line to print. */
export async function brokenLinks(page: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(ROOT, page));
  const broken: string[] = [];
  for (const target of targets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
    const [path, anchor] = target.split("#", 2);
    const file = path === "" ? join(ROOT, page) : join(ROOT, dirname(page), decodeURI(path));
    let isFile = false;
    try {
      isFile = Deno.statSync(file).isFile;
    } catch {
      broken.push(`${page}: ${target}: no such file (${relative(ROOT, file)})`);
      continue;
    }
    if (anchor === undefined || !isFile || !file.endsWith(".md")) continue;
    if (!anchors(await Deno.readTextFile(file)).has(anchor)) {
      broken.push(`${page}: ${target}: no heading #${anchor} in ${relative(ROOT, file)}`);
    }
  }
  return broken;
}

if (import.meta.main) {
  const all = (await Promise.all((await pages()).map(brokenLinks))).flat();
  for (const line of all) console.error(line);
  if (all.length > 0) Deno.exit(1);
}
