#!/usr/bin/env node
// Storyloom content in a game from the local API (Node 18+, fetch and the standard library only): the
// subcommands and output of examples/python/storyloom_client.py. Guide: docs/for-game-programmers.md
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const API = (process.env.STORYLOOM_API_URL ?? "http://127.0.0.1:9001").replace(/\/+$/, "");
const KEY = process.env.STORYLOOM_API_KEY ?? "";
// /events names collections as documents do ("Script"); /game-export?collections= takes export names ("Scripts").
const EXPORT_NAME = { Gdd: "GDD", Misc: "Misc", Kanban: "Kanban", Canvas: "Canvas", ProjectSettings: "ProjectSettings",
  ...Object.fromEntries("Script Dialogue Actor Quest Item Variable Scenario Scene Grid Map".split(" ").map((c) => [c, c + "s"])) };
const show = (value) => JSON.stringify(value); // values as JSON, the same in Python
const fail = (message) => { console.error(message); process.exit(1); };

async function request(path, collections, options = {}) {
  const query = collections ? "?" + new URLSearchParams({ collections: collections.join(",") }) : "";
  const answer = await fetch(API + path + query, { ...options, headers: { "x-api-key": KEY, ...options.headers } });
  const body = answer.ok ? null : await answer.json(); // every API error is {"error": code, "reason": text}
  return body ? fail(`${path}: ${answer.status} ${body.error}: ${body.reason}`) : answer;
}
const get = async (path, collections) => (await request(path, collections)).json();
const find = (docs, ref, kind) => // by _id or by name; folders are skipped
  docs.find((d) => d.type !== "Folder" && (d._id === ref || d.name === ref)) ?? fail(`no ${kind} '${ref}'`);

async function lines(args) {
  const script = find((await get("/game-export", ["Scripts"])).scripts, args.ref, "script");
  console.log(`script ${show(script.name)} (${script._id})`);
  for (const line of script.content.lines.filter((x) => x.type === "speech")) {
    console.log(`  line ${line.line} ${line.actor}: ${line.text}  [tag ${show(line.tag)}, expression ${show(line.expression)}]`);
    if ("mapped" in line) console.log(`    mapped: ${line.mapped}`); // only with an export mapping for the language
  }
}

async function walk(args) {
  const exported = await get("/game-export", ["Scripts", "Dialogues"]);
  const dialogue = find(exported.dialogues, args.ref, "dialogue");
  const scripts = new Map(exported.scripts.map((s) => [s._id, s])), tree = dialogue.content.tree;
  const nodes = new Map(tree.nodes.map((n) => [n.id, n])); // edges name a node by its `id` (not `data.id`)
  const handles = new Map(); // handle ids are unique per node only: key them by (node id, handle id)
  for (const n of tree.nodes) for (const h of n.data.handles ?? []) handles.set(`${n.id} ${h.id}`, h);
  console.log(`dialogue ${show(dialogue.name)} (${dialogue._id})`);
  const queue = tree.nodes.filter((n) => n.data.nodeType === "start").map((n) => n.id);
  for (const nodeId of queue) { // breadth first: the queue grows as we go
    const node = nodes.get(nodeId), kind = node.data.nodeType;
    console.log(`node ${node.id} ${kind} ${show((node.data.label ?? "").trim())}`);
    const speech = (scripts.get(node.data.scriptId)?.content?.lines ?? []).filter((x) => x.type === "speech");
    for (const line of speech) console.log(`  ${line.actor}: ${line.text}`);
    for (const edge of tree.edges.filter((e) => e.source === node.id)) {
      const out = handles.get(`${edge.source} ${edge.sourceHandle}`), into = handles.get(`${edge.target} ${edge.targetHandle}`);
      if (out?.type !== "source" || into?.type !== "target") { console.log(`  dangling edge ${edge.id}`); continue; }
      console.log(`  ${kind === "choice" ? "choice" : "next"} ${show(out.label ?? "")} -> ${edge.target}`);
      if (!queue.includes(edge.target)) queue.push(edge.target);
    }
  }
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const merged = (defaults, override) => // nested objects are partial overrides; scalars and arrays replace
  Object.fromEntries([...Object.entries(defaults), ...Object.entries(override).map(([k, v]) =>
    [k, isObject(v) && isObject(defaults[k]) ? merged(defaults[k], v) : v])]);

async function state(args) {
  const exported = await get("/game-export", ["Variables", "Scenarios"]);
  const states = exported.variables.map((v) => v.content.variables).filter(isObject); // unparsed sources stay text
  const defaults = states.find((s) => s._sid === args.ref) ?? fail(`no variable '${args.ref}'`);
  const scenario = args.scenario ? find(exported.scenarios, args.scenario, "scenario") : null;
  const current = scenario ? merged(defaults, scenario.content.scenario[args.ref] ?? {}) : defaults;
  console.log(`state ${args.ref} (${scenario ? `scenario ${show(scenario.name)}` : "defaults"})`);
  for (const key of Object.keys(current).sort()) {
    const same = show(current[key]) === show(defaults[key]);
    console.log(`  ${key} = ${show(current[key])}${same ? "" : `  (default ${show(defaults[key])})`}`);
  }
}

async function validate(args) { // what this client reads, checked against what the fetched schema states
  const exported = await get("/game-export");
  const schema = await get("/schema-export", exported._meta.collections);
  for (const [name, value] of args.save ? [["export.json", exported], ["schema.json", schema]] : []) {
    writeFileSync(join(args.save, name), JSON.stringify(value));
  }
  const defs = schema.$defs, meta = schema.properties._meta.properties, problems = [];
  for (const k of ["formatVersion", "collections"]) {
    if (show(exported._meta[k]) !== show(meta[k].const)) problems.push(`_meta.${k} is ${show(exported._meta[k])}, the schema says ${show(meta[k].const)}`);
  }
  const needs = Object.fromEntries((defs.ScriptLine?.allOf ?? []).map((r) => [r.if.properties.type.const, r.then.required]));
  for (const s of exported.scripts ?? []) for (const x of s.content?.lines ?? []) {
    for (const f of ["type", "line", ...(needs[x.type] ?? [])]) if (!(f in x)) problems.push(`script ${s._id} line ${x.line}: no "${f}"`);
  }
  const known = Object.fromEntries(Object.entries(defs.ScenarioDiff?.properties ?? {}).map(
    ([sid, ref]) => [sid, defs[ref.$ref.split("/").pop()].properties])); // each state's properties, by _sid
  for (const s of (exported.scenarios ?? []).filter((s) => s.type !== "Folder" && isObject(s.content.scenario))) {
    for (const [sid, override] of Object.entries(s.content.scenario)) for (const key of Object.keys(override)) {
      if (!(key in (known[sid] ?? {}))) problems.push(`scenario ${s._id}: ${sid}.${key} is no known state property`);
    }
  }
  console.log([...problems.map((p) => `problem: ${p}`), `${problems.length} problems in what this client reads`].join("\n"));
  process.exitCode = problems.length ? 1 : 0;
}

async function reload(event, data, eventId) { // re-fetch only the collections a change can alter
  if (event === "end" || event === "reset") { console.log(`${event}: ${data.reason}`); return 0; }
  console.log(`event ${eventId} ${data.collection ?? "-"} ${data.id} ${data.rev}${data.deleted ? " deleted" : ""}`);
  const name = EXPORT_NAME[data.collection]; // undefined: the settings, attachments, users, design documents
  if (name || data.id === "ProjectSettings") { // the settings (export mappings...) can change everything
    const also = name === "Variables" ? ["Scenarios", "Scripts"] : []; // checked against it; they use it
    const exported = await get("/game-export", name ? [name, ...also] : undefined);
    const names = Object.entries(exported).filter(([k]) => k !== "_meta").flatMap(([, docs]) => docs)
      .filter((d) => d._id === data.id).map((d) => `: ${show(d.name)}`);
    console.log(`  reloaded ${exported._meta.collections.join(",")}${names.join("")}`);
  }
  return 1;
}

async function follow(args) { // hot reload: Server-Sent Events, "field: value" lines, a blank line ends an event
  let last = args["last-event-id"], count = 0, event = "message", data = "", buffer = "", timer;
  const stop = new AbortController(), maxEvents = Number(args["max-events"] ?? Infinity); // --timeout S: give up
  const silence = () => { clearTimeout(timer); timer = args.timeout && setTimeout(() => stop.abort(), args.timeout * 1e3); };
  silence(); // ...after S seconds of silence (the server sends a keep-alive every 15 s)
  try {
    const stream = await request("/events", undefined, { headers: last ? { "Last-Event-ID": last } : {}, signal: stop.signal });
    console.log(`connected (Last-Event-ID: ${last ?? "none"})`);
    reading: for await (const chunk of stream.body.pipeThrough(new TextDecoderStream())) {
      silence();
      const received = (buffer + chunk).split(/\r\n|\r|\n/);
      buffer = received.pop(); // an incomplete line waits for the next chunk
      for (const line of received) {
        const colon = line.indexOf(":"), field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value; else if (field === "id") last = value; else if (field === "data") data += value;
        if (line === "" && data) {
          count += await reload(event, JSON.parse(data), last);
          if (event === "end" || count >= maxEvents) break reading;
          event = "message"; data = "";
        }
      }
    }
  } catch (error) {
    console.log(error.name === "AbortError" ? "timed out" : fail(`/events: ${error.message}`));
  }
  clearTimeout(timer); stop.abort(); // closes the connection
  console.log(`last-event-id ${last ?? "none"}`);
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: Object.fromEntries(
  ["scenario", "save", "last-event-id", "max-events", "timeout"].map((o) => [o, { type: "string" }])) });
const commands = { lines, walk, state, validate, follow }, [command, ref] = positionals;
if (!commands[command]) fail(`usage: storyloom_client.mjs ${Object.keys(commands).join("|")} [REF] [options]`);
await commands[command]({ ...values, ref, timeout: values.timeout && Number(values.timeout) });
