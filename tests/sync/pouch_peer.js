// A PouchDB 9 peer for Storyloom's sync tests and benchmark, driven over stdin/stdout.
//
// Each input line is a JSON command {"id", "cmd", "args"}; each output line is
// {"id", "result"} or {"id", "error"}. Local databases are LevelDB directories under the
// directory given as the first argument. Remote databases are URLs; credentials go in
// args.auth = {username, password}.
'use strict';

const path = require('path');
const fs = require('fs');
const PouchDB = require('pouchdb');

const baseDir = process.argv[2] || fs.mkdtempSync('/tmp/pouch-peer-');
const dbs = new Map();

function local(name) {
  if (!dbs.has(name)) {
    dbs.set(name, new PouchDB(path.join(baseDir, name)));
  }
  return dbs.get(name);
}

function endpoint(spec, auth) {
  if (typeof spec === 'string' && /^https?:\/\//.test(spec)) {
    return new PouchDB(spec, auth ? { auth } : {});
  }
  return local(spec);
}

function summary(result) {
  if (!result) return result;
  const out = {};
  for (const key of ['ok', 'status', 'docs_read', 'docs_written', 'doc_write_failures', 'last_seq', 'start_time', 'end_time']) {
    if (key in result) out[key] = result[key];
  }
  if (result.errors) out.errors = result.errors.map(String);
  if (result.push) out.push = summary(result.push);
  if (result.pull) out.pull = summary(result.pull);
  return out;
}

const commands = {
  async put({ db, doc }) { return local(db).put(doc); },
  async get({ db, id, opts }) { return local(db).get(id, opts || {}); },
  async remove({ db, id, rev }) { return local(db).remove(id, rev); },
  async bulkDocs({ db, docs, opts }) { return local(db).bulkDocs(docs, opts || {}); },
  async bulkDocsFile({ db, file, batch }) {
    const docs = JSON.parse(fs.readFileSync(file, 'utf8'));
    const size = batch || 100;
    for (let i = 0; i < docs.length; i += size) {
      await local(db).bulkDocs(docs.slice(i, i + size));
    }
    return { count: docs.length };
  },
  async allDocs({ db, opts }) { return local(db).allDocs(opts || {}); },
  async info({ db }) { return local(db).info(); },
  async changes({ db, opts }) { return local(db).changes(opts || {}); },
  async replicate({ source, target, auth, opts }) {
    const started = process.hrtime.bigint();
    const result = await PouchDB.replicate(endpoint(source, auth), endpoint(target, auth), opts || {});
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return { ms, result: summary(result) };
  },
  async sync({ db, url, auth, opts }) {
    const started = process.hrtime.bigint();
    const result = await PouchDB.sync(local(db), endpoint(url, auth), opts || {});
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return { ms, result: summary(result) };
  },
  async close({ db }) {
    if (dbs.has(db)) { await dbs.get(db).close(); dbs.delete(db); }
    return { ok: true };
  },
  async ping() { return { ok: true, pouchdb: PouchDB.version }; },
};

require(path.join(__dirname, '..', 'node', 'json_lines.js')).serveLines(commands);
