// Node 20 lacks fs.globSync (Node 22+), which the conformance suite's single bundle imports at load
// for its `tier-check` command only; the server scenarios never call it. This hook hands that bundle
// an `fs` with a globSync that says so, and leaves every other importer's `fs` alone.
import { register } from "node:module";

register("data:text/javascript," + encodeURIComponent(`
const SHIM = "data:text/javascript," + encodeURIComponent(
  'export * from "node:fs"; export { default } from "node:fs";' +
  'export function globSync() { throw new Error("fs.globSync needs Node 22 (tier-check only)"); }');
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && (context.parentURL || "").includes("/@modelcontextprotocol/conformance/"))
    return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}`));
