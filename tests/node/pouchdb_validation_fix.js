// Preloaded into pouchdb-server (NODE_OPTIONS=--require <this file>) so its validate_doc_update
// support gives the function what CouchDB gives it: the old revision CouchDB would pass, and the
// database's security object as the 4th argument.
//
// pouchdb-validation 4.2.0, as shipped:
// - passes the current winner as oldDoc for every write. CouchDB passes, for an interactive write
//   (PUT, DELETE, _bulk_docs), the revision named by _rev (the one being replaced, which need not
//   be the winner), and for a replicated write (_bulk_docs with new_edits:false) the new
//   revision's nearest ancestor whose body the server holds (null when it holds none: a new
//   document, or a history disjoint from the server's).
// - overwrites a replicated revision's _revisions with the winner's history; the revision tree
//   then sees nothing new and the write is dropped while the server answers 201 [].
// - passes secObj only on the routes that run after express-pouchdb's security route (PUT and
//   DELETE of a document, not _bulk_docs, which is routed earlier), else an empty object.
//   CouchDB always passes the database's security object; the lock rules read the owners
//   (secObj.admins) from it, so the security object is read here when the route gave none.
//
// This file loads the plug-in from its own source with those functions corrected, before
// pouchdb-server requires it (docs/protocol.md, section 6).
"use strict";

const fs = require("fs");
const path = require("path");
const Module = require("module");

const modules = process.env.STORYLOOM_NODE_MODULES || path.join(__dirname, "node_modules");
// Node keys its module cache by the real path: through a symlinked node_modules (a git worktree
// sharing the main checkout's), the unresolved path would patch a copy nobody requires.
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
  function none() {
    return null;
  }
  if (options && options.new_edits === false) {
    // The nearest ancestor with a body, walking up the new revision's own history.
    var revs = newDoc._revisions;
    if (!revs || !revs.ids || revs.ids.length < 2) {
      return Promise.resolve(null);
    }
    var ancestor = function (i) {
      if (i >= revs.ids.length) {
        return Promise.resolve(null);
      }
      var rev = (revs.start - i) + "-" + revs.ids[i];
      return db.get(id, {rev: rev, revs: true}).catch(function () {
        return ancestor(i + 1);
      });
    };
    return ancestor(1);
  }
  if (typeof newDoc._rev === "string" && newDoc._rev) {
    // The revision being replaced; when it does not exist the write fails with 409 anyway.
    return db.get(id, {rev: newDoc._rev, revs: true}).catch(none);
  }
  return db.get(id, {revs: true}).catch(none);
}`,
  ],
  [
    `  newDoc._revisions = (oldDoc || {})._revisions;
`,
    `  var replicated = options && options.new_edits === false;
  if (!replicated) {
    newDoc._revisions = (oldDoc || {})._revisions;
  }
`,
  ],
  [
    `    var oldDocPromise = oldDoc(db, newDoc._id);`,
    `    var oldDocPromise = oldDoc(db, newDoc._id, newDoc, options);`,
  ],
  [
    `function completeValidationOptions(db, options) {
  if (!options.secObj) {
    options.secObj = {};
  }
`,
    `function completeValidationOptions(db, options) {
  var secObjPromise;
  if (options.secObj) {
    secObjPromise = Promise.resolve(options.secObj);
  } else if (typeof db.getSecurity === "function") {
    secObjPromise = db.getSecurity().catch(function () {
      return {};
    });
  } else {
    secObjPromise = Promise.resolve({});
  }
`,
  ],
  [
    `  return userCtxPromise.then(function (userCtx) {
    options.userCtx = userCtx;
    return options;
  });`,
    `  return Promise.all([userCtxPromise, secObjPromise]).then(function (found) {
    options.userCtx = found[0];
    options.secObj = found[1] || {};
    return options;
  });`,
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
