// Validates JSON instances against JSON Schemas with ajv 8's draft 2020-12 build (strict mode
// off, ajv-formats added): what a game team on Node, TypeScript or a web tool uses.
//
// Protocol (tests/support/ajv.py drives it): one JSON request per line on stdin,
//   {"schema": <schema>, "instances": [<instance>, ...]}
// one JSON answer per line on stdout, in the same order:
//   {"compiled": true, "results": [[<ajv error>, ...], ...]}   one error list per instance
//   {"compiled": false, "error": "<why ajv refuses the schema>"}
// Compiled schemas are kept by their text, so validating many instances against one schema
// compiles it once.
"use strict";

const readline = require("readline");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const compiled = new Map();

function validator(schema) {
  const key = JSON.stringify(schema);
  let found = compiled.get(key);
  if (found === undefined) {
    // A fresh instance per schema: schemas of different projects share no $id.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    found = ajv.compile(schema);
    compiled.set(key, found);
  }
  return found;
}

function answer(line) {
  const request = JSON.parse(line);
  let validate;
  try {
    validate = validator(request.schema);
  } catch (error) {
    return { compiled: false, error: String(error && error.message ? error.message : error) };
  }
  const results = (request.instances || []).map((instance) => {
    validate(instance);
    return validate.errors ? validate.errors.map((e) => ({ ...e })) : [];
  });
  return { compiled: true, results };
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let reply;
  try {
    reply = answer(line);
  } catch (error) {
    reply = { compiled: false, error: `bad request: ${error && error.message ? error.message : error}` };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
