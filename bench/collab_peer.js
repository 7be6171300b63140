// Two PouchDB 9 clients in live sync with one server, for bench/collab_bench.py.
//
// Both local databases (LevelDB under the directory given as the first argument) live in this
// one Node process, so the time from a put on client A to the document's arrival in client B is
// read on one clock. Driven over stdin/stdout, one JSON command per line:
//   {"cmd": "start", "url": ..., "auth": {"username", "password"}}  -> both syncs caught up
//   {"cmd": "edit", "id": ...}                                       -> put on A (time noted)
//   {"cmd": "wait", "ids": [...], "timeout_ms": n}                   -> latencies in ms (null: not arrived)
//   {"cmd": "stop"}                                                   -> cancels both syncs
'use strict';

const path = require('path');
const fs = require('fs');
const readline = require('readline');
const PouchDB = require('pouchdb');

const baseDir = process.argv[2] || fs.mkdtempSync('/tmp/collab-peer-');
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sent = new Map();
const arrived = new Map();
let a = null;
let b = null;
let syncs = [];
let feed = null;

function caughtUp(sync) {
  return new Promise((resolve, reject) => {
    sync.on('paused', (err) => { if (!err) resolve(); });
    sync.on('error', reject);
  });
}

const commands = {
  async start({ url, auth }) {
    a = new PouchDB(path.join(baseDir, 'client-a'));
    b = new PouchDB(path.join(baseDir, 'client-b'));
    const opts = { live: true, retry: true };
    syncs = [a, b].map((db) => PouchDB.sync(db, new PouchDB(url, { auth }), opts));
    await Promise.all(syncs.map(caughtUp));
    feed = b.changes({ since: 'now', live: true }).on('change', (change) => {
      if (!arrived.has(change.id)) arrived.set(change.id, now());
    });
    return { ok: true, pouchdb: PouchDB.version };
  },
  async edit({ id }) {
    sent.set(id, now());
    await a.put({ _id: id, type: 'Item', name: `Edit ${id}`, text: 'x'.repeat(200) });
    return { ok: true };
  },
  async wait({ ids, timeout_ms }) {
    const deadline = now() + (timeout_ms || 10000);
    while (now() < deadline && !ids.every((id) => arrived.has(id))) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return ids.map((id) => (arrived.has(id) ? arrived.get(id) - sent.get(id) : null));
  },
  async stop() {
    if (feed) feed.cancel();
    for (const sync of syncs) sync.cancel();
    syncs = [];
    if (a) await a.close();
    if (b) await b.close();
    return { ok: true };
  },
};

const rl = readline.createInterface({ input: process.stdin, terminal: false });
let chain = Promise.resolve();
rl.on('line', (line) => {
  if (!line.trim()) return;
  // Commands run one at a time; an edit does not wait for the previous edit's arrival.
  chain = chain.then(async () => {
    let msg;
    try {
      msg = JSON.parse(line);
      const fn = commands[msg.cmd];
      if (!fn) throw new Error('unknown command ' + msg.cmd);
      const result = await fn(msg);
      process.stdout.write(JSON.stringify({ result }) + '\n');
    } catch (err) {
      process.stdout.write(JSON.stringify({ error: String(err && (err.message || err)) }) + '\n');
    }
  });
});
rl.on('close', () => { chain.then(() => process.exit(0)); });
