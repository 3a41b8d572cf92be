// Cross-checks Parley's JSON Schemas and fixtures with an independent
// validator: AJV (draft 2020-12, strict mode) with ajv-formats.
//
//   node schemas/ajv-check.mjs
//
// It compiles every *.schema.json under schemas/, then checks that
//   - every fixture in fixtures/valid/ is accepted by envelope.schema.json
//     and every fixture in fixtures/identity-link/valid/ by
//     identity-link.schema.json;
//   - every fixture in fixtures/invalid/ named <code>--<what>.json is
//     rejected when its defect is schema-level and accepted otherwise, as
//     fixtures/schema-level-codes.json says (the Go tests read the same file);
//     malformed_json fixtures must not parse at all;
//   - every intent card in fixtures/intent-card/valid/ is accepted by
//     intent-card.schema.json, and every one in fixtures/intent-card/invalid/
//     is rejected when its code is schema-level and accepted otherwise
//     (rule_invalid and duplicate_key are beyond a schema validator).
// It exits non-zero, naming each mismatch, when any check fails.

import { readFileSync, readdirSync, existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "fixtures");
const problems = [];

function schemaFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "fixtures") out.push(...schemaFiles(p));
    } else if (e.name.endsWith(".schema.json")) {
      out.push(p);
    }
  }
  return out.sort();
}

function jsonFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((n) => n.endsWith(".json")).sort();
}

function describe(errors) {
  return (errors || []).slice(0, 3).map((e) => `${e.instancePath || "/"} ${e.message} [${e.schemaPath}]`).join("; ");
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const files = schemaFiles(here);
for (const f of files) {
  ajv.addSchema(JSON.parse(readFileSync(f, "utf8")));
}
const base = "https://parley.dev/schemas/";
for (const f of files) {
  const id = base + relative(here, f).split("\\").join("/");
  try {
    ajv.getSchema(id);
  } catch (err) {
    problems.push(`schema ${relative(here, f)} does not compile in strict mode: ${err.message}`);
  }
}
if (problems.length > 0) {
  for (const p of problems) console.error("ajv-check: " + p);
  process.exit(1);
}
const envelope = ajv.getSchema(base + "envelope.schema.json");
const link = ajv.getSchema(base + "identity-link.schema.json");

const levels = JSON.parse(readFileSync(join(fixtures, "schema-level-codes.json"), "utf8"));
const schemaLevel = new Set(levels.schemaLevel);
const beyondSchema = new Set(Object.keys(levels.beyondSchema || {}));
for (const name of beyondSchema) {
  if (!existsSync(join(fixtures, "invalid", name))) problems.push(`schema-level-codes.json names ${name}, which does not exist`);
}

let nValid = 0;
for (const [dir, validate] of [["valid", envelope], [join("identity-link", "valid"), link]]) {
  for (const name of jsonFiles(join(fixtures, dir))) {
    nValid++;
    const doc = JSON.parse(readFileSync(join(fixtures, dir, name), "utf8"));
    if (!validate(doc)) problems.push(`${dir}/${name}: rejected: ${describe(validate.errors)}`);
  }
}

let nInvalid = 0, nRejected = 0;
const invalidDir = join(fixtures, "invalid");
for (const name of jsonFiles(invalidDir)) {
  nInvalid++;
  const code = name.split("--")[0];
  if (!name.includes("--")) {
    problems.push(`invalid/${name}: not named <code>--<what>.json`);
    continue;
  }
  const text = readFileSync(join(invalidDir, name), "utf8");
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    if (code !== "malformed_json") problems.push(`invalid/${name}: does not parse (${err.message}) but its code is ${code}`);
    nRejected++;
    continue;
  }
  if (code === "malformed_json") {
    problems.push(`invalid/${name}: parses, but its code is malformed_json`);
    continue;
  }
  const wantReject = schemaLevel.has(code) && !beyondSchema.has(name);
  const ok = envelope(doc);
  if (!ok) nRejected++;
  if (wantReject && ok) problems.push(`invalid/${name}: accepted, but ${code} is a schema-level defect`);
  if (!wantReject && !ok) problems.push(`invalid/${name}: rejected (${describe(envelope.errors)}), but its defect (${code}) is beyond the schema`);
}

const card = ajv.getSchema(base + "intent-card.schema.json");
let nCards = 0;
for (const name of jsonFiles(join(fixtures, "intent-card", "valid"))) {
  nCards++;
  const doc = JSON.parse(readFileSync(join(fixtures, "intent-card", "valid", name), "utf8"));
  if (!card(doc)) problems.push(`intent-card/valid/${name}: rejected: ${describe(card.errors)}`);
}
for (const name of jsonFiles(join(fixtures, "intent-card", "invalid"))) {
  nCards++;
  const code = name.split("--")[0];
  let doc;
  try {
    doc = JSON.parse(readFileSync(join(fixtures, "intent-card", "invalid", name), "utf8"));
  } catch (err) {
    if (code !== "malformed_json") problems.push(`intent-card/invalid/${name}: does not parse (${err.message}) but its code is ${code}`);
    continue;
  }
  const ok = card(doc);
  if (schemaLevel.has(code) && ok) problems.push(`intent-card/invalid/${name}: accepted, but ${code} is a schema-level defect`);
  if (!schemaLevel.has(code) && !ok) problems.push(`intent-card/invalid/${name}: rejected (${describe(card.errors)}), but its defect (${code}) is beyond the schema`);
}
if (nCards === 0) problems.push(`no intent card fixtures found under ${fixtures}`);

if (nValid === 0 || nInvalid === 0) problems.push(`no fixtures found under ${fixtures}`);
if (problems.length > 0) {
  for (const p of problems) console.error("ajv-check: " + p);
  console.error(`ajv-check: FAIL: ${problems.length} mismatch(es)`);
  process.exit(1);
}
console.log(`ajv-check: ok: ${files.length} schemas compiled in strict mode; ${nValid} valid fixtures accepted; ${nRejected} of ${nInvalid} invalid fixtures rejected, the rest beyond the schema as schema-level-codes.json says; ${nCards} intent card fixtures judged`);
