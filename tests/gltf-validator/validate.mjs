// Validates each .glb named on the command line with the Khronos glTF validator and
// prints one JSON line per file: {"file", "errors", "warnings", "messages"}. Exits 1
// when any file has an error, 2 on a usage or I/O problem.
import { readFileSync } from "node:fs";
import validator from "gltf-validator";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node validate.mjs FILE.glb...");
  process.exit(2);
}
let failed = false;
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  const report = await validator.validateBytes(bytes, { maxIssues: 100 });
  const issues = report.issues;
  const messages = issues.messages
    .filter((m) => m.severity <= 1)
    .map((m) => `${m.code} ${m.pointer ?? ""}: ${m.message}`);
  console.log(JSON.stringify({
    file,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    messages,
  }));
  if (issues.numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
