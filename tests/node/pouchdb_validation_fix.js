// Preloaded into pouchdb-server (NODE_OPTIONS=--require <this file>) so its validate_doc_update
// support treats replicated writes (_bulk_docs with new_edits:false) as CouchDB does.
//
// pouchdb-validation 4.2.0 passes the current winner as oldDoc and overwrites the new
// revision's _revisions with the winner's history; the revision tree then sees nothing new and
// the write is dropped while the server answers 201 []. CouchDB passes the new revision's parent
// as oldDoc and keeps the history. This file loads the plug-in from its own source with those two
// functions corrected, before pouchdb-server requires it.
"use strict";

const fs = require("fs");
const path = require("path");
const Module = require("module");

const modules = process.env.STORYLOOM_NODE_MODULES || path.join(__dirname, "node_modules");
// Node caches modules by their real path: through a symlinked node_modules (a git worktree
// sharing the main checkout's packages) the path must be resolved, or the fix is never used.
const file = fs.realpathSync(path.join(modules, "pouchdb-validation", "lib", "index.js"));
let source = fs.readFileSync(file, "utf8");

const patches = [
  [
    `function oldDoc(db, id) {
  return db.get(id, {revs: true}).catch(function () {
    return null;
  });
}`,
    `function oldDoc(db, id, newDoc, options) {
  if (options && options.new_edits === false) {
    var revs = newDoc._revisions;
    if (!revs || !revs.ids || revs.ids.length < 2) {
      return Promise.resolve(null);
    }
    var parent = (revs.start - 1) + "-" + revs.ids[1];
    return db.get(id, {rev: parent, revs: true}).catch(function () {
      return null;
    });
  }
  return db.get(id, {revs: true}).catch(function () {
    return null;
  });
}`,
  ],
  [
    `  newDoc._revisions = (oldDoc || {})._revisions;
`,
    `  var replicated = options && options.new_edits === false;
  var ownRevisions = newDoc._revisions;
  if (!replicated) {
    newDoc._revisions = (oldDoc || {})._revisions;
  }
`,
  ],
  [
    `    var oldDocPromise = oldDoc(db, newDoc._id);`,
    `    var oldDocPromise = oldDoc(db, newDoc._id, newDoc, options);`,
  ],
];

for (const [before, after] of patches) {
  if (!source.includes(before)) {
    throw new Error("pouchdb_validation_fix.js: pouchdb-validation changed; this fix no longer applies");
  }
  source = source.replace(before, after);
}

const patched = new Module(file, null);
patched.filename = file;
patched.paths = Module._nodeModulePaths(path.dirname(file));
patched._compile(source, file);
patched.loaded = true;
require.cache[file] = patched;
