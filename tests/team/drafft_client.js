// A Drafft teammate for Storyloom's team tests: PouchDB 9 writing documents and locks the way
// Drafft does (../shared/docs/drafft-reference.md section 6), driven over stdin/stdout.
//
// Drafft keeps a lock in the document: `locked: true, lockedBy: <its user name>` to take it,
// `locked: false, lockedBy: "nobody"` to release it, and no `lockedAt`. It writes the lock into
// its local PouchDB and replicates it: there is no compare-and-swap on the server, the server's
// validate_doc_update is the only guard.
//
// Usage: node drafft_client.js WORKDIR DB_URL USERNAME PASSWORD [DRAFFT_NAME]
// DRAFFT_NAME is the name typed in Drafft's Options > Username (default: USERNAME).
// Each input line is {"id", "cmd", "args"}; each output line {"id", "result"} or {"id", "error"}.
'use strict';

const path = require('path');
const PouchDB = require('pouchdb');

const [workdir, dbUrl, username, password, drafftName] = process.argv.slice(2);
const me = drafftName || username;
const local = new PouchDB(path.join(workdir, 'drafft-local'));
const remote = new PouchDB(dbUrl, { auth: { username, password } });

function summary(result) {
  return {
    ok: result.ok,
    docs_written: result.docs_written,
    doc_write_failures: result.doc_write_failures,
    errors: (result.errors || []).map((e) => ({ name: e.name, status: e.status, message: String(e.message || e.reason || e) })),
  };
}

async function push() { return summary(await PouchDB.replicate(local, remote)); }
async function pull() { return summary(await PouchDB.replicate(remote, local)); }

// Drafft's save: the document as the editor holds it, written locally, then replicated.
async function save(doc) {
  doc.modified = new Date().toString();  // Drafft's own date format (a JS Date string)
  doc.modifiedBy = me;
  const written = await local.put(doc);
  return { rev: written.rev, push: await push() };
}

const commands = {
  pull,
  push,
  async get({ id, conflicts }) { return local.get(id, conflicts ? { conflicts: true } : {}); },
  async lock({ id }) {
    const doc = await local.get(id);
    doc.locked = true;
    doc.lockedBy = me;
    return save(doc);
  },
  async unlock({ id }) {
    const doc = await local.get(id);
    doc.locked = false;
    doc.lockedBy = 'nobody';
    return save(doc);
  },
  async edit({ id, script }) {
    const doc = await local.get(id);
    doc.content = Object.assign({}, doc.content, { script });
    return save(doc);
  },
};

require(path.join(__dirname, '..', 'node', 'json_lines.js')).serveLines(commands);
