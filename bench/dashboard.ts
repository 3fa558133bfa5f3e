/**
 * The dashboard's weight on first load, against the budget of 60 KB of JavaScript (gzip): the
 * shell (app.js and what it imports: sign-in and the sites list) and, for each screen, the
 * shell plus that screen's chunk and what it imports — what a browser downloads to open it
 * from a bookmark. Then the stylesheet, and which packages the script bytes come from
 * (esbuild's metafile, minified bytes before compression).
 */
import { build, type Metafile, type OutputFile } from "esbuild";
import { relative } from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT } from "../cli/paths";
import { buildDashboard, dashboardScript } from "../scripts/build";

export const SCRIPT_BUDGET_GZIP = 60 * 1024;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** node_modules/@scope/name/… → @scope/name; our own files → dashboard/src. */
function packageOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  return match ? match[1]! : "dashboard/src (Wren)";
}

/** The output files a chunk pulls in before it runs: itself and its static imports, transitively. */
function closure(metafile: Metafile, start: string): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of metafile.outputs[path]?.imports ?? []) if (imported.kind === "import-statement") visit(imported.path);
  };
  visit(start);
  return seen;
}

export async function run(): Promise<void> {
  await buildDashboard();
  const { metafile, outputFiles } = await build({ ...dashboardScript, write: false, metafile: true });
  const gzipOf = new Map<string, number>(
    (outputFiles as OutputFile[]).map((file) => [relative(ROOT, file.path), gzipSync(file.contents, { level: 9 }).length]),
  );
  const weigh = (files: Set<string>) => [...files].reduce((sum, file) => sum + (gzipOf.get(file) ?? 0), 0);
  const entry = Object.keys(metafile.outputs).find((path) => path.endsWith("/app.js"))!;
  const shell = closure(metafile, entry);
  const loads: [string, number][] = [["shell (sign-in, sites)", weigh(shell)]];
  // Every chunk the shell loads when asked (a screen, or the shared dashboard's own shell), from
  // whichever of the shell's files asks for it: esbuild may move the asking code to a shared chunk.
  const lazy = new Set(
    [...shell].flatMap((file) => metafile.outputs[file]!.imports.filter((i) => i.kind === "dynamic-import").map((i) => i.path)),
  );
  for (const chunk of lazy) {
    const name = /([a-z-]+)-[A-Z0-9]+\.js$/.exec(chunk)?.[1] ?? chunk;
    const label = name === "app" ? "shared link's shell" : name === "esm" ? "passkey ceremony (on the click)" : name;
    loads.push([label, weigh(new Set([...shell, ...closure(metafile, chunk)]))]);
  }
  console.log("first load, JavaScript (gzip):");
  for (const [name, bytes] of loads) console.log(`  ${name.padEnd(24)} ${kb(bytes).padStart(9)}`);
  const [heaviest, most] = loads.reduce((a, b) => (b[1] > a[1] ? b : a));
  const verdict = most <= SCRIPT_BUDGET_GZIP ? "within" : "OVER";
  console.log(
    `heaviest first load (${heaviest}) ${kb(most)} of the ${kb(SCRIPT_BUDGET_GZIP)} budget: ${((most / SCRIPT_BUDGET_GZIP) * 100).toFixed(0)} % (${verdict})`,
  );
  const all = [...gzipOf.values()].reduce((a, b) => a + b, 0);
  console.log(`every screen loaded: ${kb(all)} gzip in ${gzipOf.size} files`);
  const css = (
    await build({
      ...dashboardScript,
      entryPoints: [`${ROOT}/dashboard/src/style.css`],
      splitting: false,
      outdir: undefined,
      write: false,
    })
  ).outputFiles[0]!;
  console.log(`style.css ${kb(css.contents.length)} raw, ${kb(gzipSync(css.contents, { level: 9 }).length)} gzip`);

  const byPackage = new Map<string, number>();
  let total = 0;
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput);
      total += bytesInOutput;
    }
  }
  console.log("script bytes by package (minified, every chunk):");
  for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${name.padEnd(24)} ${kb(bytes).padStart(9)}  ${((bytes / total) * 100).toFixed(0).padStart(3)} %`);
  }
  if (verdict === "OVER") process.exitCode = 1;
}
