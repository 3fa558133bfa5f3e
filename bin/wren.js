#!/usr/bin/env node
// The `wren` command. The CLI is TypeScript, run through tsx's loader so no build step
// stands between a clone and `npx wren`.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
