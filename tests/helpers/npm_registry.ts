/**
 * What the npm package's tests need: a PATH of every program this machine
 * has but Deno (a machine with only Node), a port nothing
 * listens on (every registry pointed there), and a local npm registry
 * (verdaccio, from npm) that holds only what the test publishes into it.
 *
 * @module
 */
import { waitFor } from "../../dev/wait.ts";

/** A TCP port of 127.0.0.1 that nothing listens on (a listener's, closed). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The environment that sends npm and Deno's downloads to `port`, where nothing answers. */
export function noRegistry(port: number): Record<string, string> {
  const closed = `http://127.0.0.1:${port}`;
  return {
    NPM_CONFIG_REGISTRY: `${closed}/`,
    npm_config_registry: `${closed}/`,
    HTTPS_PROXY: closed,
    HTTP_PROXY: closed,
    https_proxy: closed,
    http_proxy: closed,
  };
}

/** The real path of `program` found on this process's PATH. */
export function which(program: string): string {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (dir !== "" && Deno.statSync(`${dir}/${program}`).isFile) {
        return Deno.realPathSync(`${dir}/${program}`);
      }
    } catch { /* not here */ }
  }
  throw new Error(`${program} is not on PATH`);
}

/**
 * Makes `dir` a copy of `path` (default: this process's PATH) without Deno:
 * a link to every program found there (the first of each name) but `deno`.
 * Its path.
 */
export async function pathWithoutDeno(
  dir: string,
  path = Deno.env.get("PATH") ?? "",
): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const linked = new Set(["deno"]);
  for (const from of path.split(":")) {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(from)];
    } catch {
      continue;
    }
    for (const { name } of entries) {
      if (linked.has(name)) continue;
      linked.add(name);
      await Deno.symlink(`${from}/${name}`, `${dir}/${name}`);
    }
  }
  return dir;
}

/** npm's platform package of this machine's Deno binary, as the `deno` package names it. */
export function denoPlatformPackage(): string {
  const arch = Deno.build.arch === "aarch64" ? "arm64" : "x64";
  if (Deno.build.os === "linux") return `@deno/linux-${arch}-glibc`;
  if (Deno.build.os === "darwin") return `@deno/darwin-${arch}`;
  throw new Error(`no Deno package for ${Deno.build.os} in this test`);
}

/** A verdaccio on 127.0.0.1 with no uplink: it serves what was published to it, and nothing else. */
export interface LocalRegistry extends AsyncDisposable {
  url: string;
  /** Publishes a package tarball (as the registry's one user). */
  publish(tarball: string): Promise<void>;
}

/** Starts verdaccio (on PATH, else `npx -y verdaccio@6`) in `dir`, with `env` for npm. */
export async function localRegistry(
  dir: string,
  env: Record<string, string>,
): Promise<LocalRegistry> {
  const port = closedPort();
  const url = `http://127.0.0.1:${port}/`;
  await Deno.writeTextFile(
    `${dir}/config.yaml`,
    [
      `storage: ${dir}/storage`,
      `auth: { htpasswd: { file: ${dir}/htpasswd } }`,
      "uplinks: {}",
      "packages: { '**': { access: $all, publish: $authenticated } }",
      // The deno package's platform binary is a 40 MB tarball.
      "max_body_size: 300mb",
      "log: { type: stdout, format: pretty, level: error }",
    ].join("\n") + "\n",
  );
  let verdaccio: string[];
  try {
    verdaccio = [which("verdaccio")];
  } catch {
    verdaccio = ["npx", "-y", "verdaccio@6"];
  }
  const child = new Deno.Command(verdaccio[0], {
    args: [
      ...verdaccio.slice(1),
      "--config",
      `${dir}/config.yaml`,
      "--listen",
      `127.0.0.1:${port}`,
    ],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const registry: LocalRegistry = {
    url,
    publish: async () => {},
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch { /* ended */ }
      await child.status;
    },
  };
  try {
    await waitFor("verdaccio to answer", async () => {
      try {
        return (await fetch(`${url}-/ping`)).ok;
      } catch {
        return false;
      }
    }, { timeoutMs: 120_000, intervalMs: 100 });
    // Its one user, made as `npm adduser` would; the token goes into an npmrc of the test's.
    const added = await fetch(`${url}-/user/org.couchdb.user:portal`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "portal", password: "portal-test" }),
    });
    const { token } = await added.json();
    if (!token) throw new Error(`verdaccio made no user: HTTP ${added.status}`);
    await Deno.writeTextFile(
      `${dir}/npmrc`,
      `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`,
    );
  } catch (error) {
    await registry[Symbol.asyncDispose]();
    throw error;
  }
  registry.publish = async (tarball: string) => {
    const { success, stderr } = await new Deno.Command("npm", {
      args: [
        "publish",
        tarball,
        "--userconfig",
        `${dir}/npmrc`,
        "--registry",
        url,
        "--tag",
        "latest",
      ],
      env,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!success) {
      throw new Error(`npm publish ${tarball}: ${new TextDecoder().decode(stderr)}`);
    }
  };
  return registry;
}
