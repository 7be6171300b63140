// Differential-test driver: runs batches of revision histories through npm `pouchdb-merge`.
//
// Usage: node node_merge_runner.js <node_modules dir>  (JSON on stdin, JSON on stdout)
//
// Input:  {"cases": [{"limit": N, "paths": [{"pos": P, "chain": [hash root..leaf], "deleted": bool}],
//                     "detail"?: bool, "adapter"?: bool}]}
// Output: {"version": "<pouchdb-merge version>", "cases": [{"raw": {...}, "adapter"?: {...}}]}
//
// Two modes per case:
//  - "raw": every path goes through merge(tree, path, limit), as the pure functions and the
//    Database (couch_key_tree:merge semantics) do.
//  - "adapter" (only when the case asks for it): what a PouchDB database does with
//    bulkDocs(new_edits=false): a path whose leaf rev already exists anywhere in the tree is
//    skipped (revExists), otherwise merged.
// For each step the driver reports the winner, the conflicts, the leaves (rev + deleted) and, in
// raw mode, merge's outcome and stemmed revs, and with "detail" every root-to-leaf path of the
// tree (rootToLeaf). The final trees are sent flat ([pos, hash, parent index or -1, opts] per
// node) so neither side has to (de)serialise JSON nested a thousand levels deep, and their
// root-to-leaf paths as `finalPaths`.
'use strict';

const crypto = require('crypto');
const path = require('path');

const modulesDir = process.argv[2];
if (!modulesDir) {
  process.stderr.write('usage: node node_merge_runner.js <node_modules dir>\n');
  process.exit(2);
}
const pm = require(path.join(modulesDir, 'pouchdb-merge'));
const version = require(path.join(modulesDir, 'pouchdb-merge', 'package.json')).version;

// A one-path tree from a root-first chain: only the leaf is available (as _revisions gives it).
function buildPath(spec) {
  const chain = spec.chain;
  const leafOpts = {status: 'available'};
  if (spec.deleted) {
    leafOpts.deleted = true;
  }
  let node = [chain[chain.length - 1], leafOpts, []];
  for (let i = chain.length - 2; i >= 0; i--) {
    node = [chain[i], {status: 'missing'}, [node]];
  }
  return {pos: spec.pos, ids: node};
}

function flatten(tree) {
  const out = [];
  const stack = [];
  for (const branch of tree) {
    stack.push({pos: branch.pos, node: branch.ids, parent: -1});
  }
  while (stack.length) {
    const item = stack.pop();
    const index = out.length;
    out.push([item.pos, item.node[0], item.parent, item.node[1]]);
    for (const child of item.node[2]) {
      stack.push({pos: item.pos + 1, node: child, parent: index});
    }
  }
  return out;
}

// A digest of the whole tree, computed the same way on the Python side: one line per node
// "pos|hash|parent pos|parent hash|leaf|status|deleted", sorted, joined by newlines, sha1.
// `deleted` is only recorded for leaves: when a tombstone arrives as the leaf of a path and
// already sits inside the tree as a 'missing' node, PouchDB keeps the old opts and only sets
// status, while CouchDB (value_pref) and our store take the incoming leaf's opts. The flag has no
// effect on inner nodes' winner/conflict semantics.
function signature(tree) {
  const isParent = new Set(tree.map((row) => row[2]));
  const text = tree.map((row, index) => {
    const [pos, hash, parent, opts] = row;
    const p = parent < 0 ? ['-', '-'] : [tree[parent][0], tree[parent][1]];
    const leaf = isParent.has(index) ? 0 : 1;
    return [pos, hash, p[0], p[1], leaf, opts.status, leaf && opts.deleted ? 1 : 0].join('|');
  }).sort().join('\n');
  return crypto.createHash('sha1').update(text, 'utf8').digest('hex');
}

function describe(tree) {
  const metadata = {rev_tree: tree};
  const leaves = pm.collectLeaves(tree).map((leaf) => [leaf.rev, !!leaf.opts.deleted]);
  return {
    winner: pm.winningRev(metadata),
    conflicts: pm.collectConflicts(metadata),
    leaves,
  };
}

// Every root-to-leaf path as [root pos, [hashes root..leaf], leaf deleted, statuses], the statuses
// one letter per node ("a" available, "m" missing).
function paths(tree) {
  return pm.rootToLeaf(tree).map((p) => [
    p.pos,
    p.ids.map((n) => n.id),
    !!p.ids[p.ids.length - 1].opts.deleted,
    p.ids.map((n) => (n.opts.status === 'available' ? 'a' : 'm')).join(''),
  ]);
}

function leafRev(spec) {
  return (spec.pos + spec.chain.length - 1) + '-' + spec.chain[spec.chain.length - 1];
}

function runCase(c) {
  // raw: merge every path
  let tree = [];
  const rawSteps = [];
  for (const spec of c.paths) {
    const res = pm.merge(tree, buildPath(spec), c.limit);
    tree = res.tree;
    const step = describe(tree);
    step.signature = signature(flatten(tree));
    step.outcome = res.conflicts;
    step.stemmed = res.stemmedRevs;
    if (c.detail) {
      step.paths = paths(tree);
    }
    rawSteps.push(step);
  }
  const raw = {steps: rawSteps, tree: flatten(tree), finalPaths: paths(tree)};
  if (!c.adapter) {
    return {raw};
  }

  // adapter: skip paths whose leaf is already present, like pouchdb-adapter-utils updateDoc
  let atree = [];
  const adapterSteps = [];
  for (const spec of c.paths) {
    let skipped = false;
    if (atree.length && pm.revExists(atree, leafRev(spec))) {
      skipped = true;
    } else {
      atree = pm.merge(atree, buildPath(spec), c.limit).tree;
    }
    const step = describe(atree);
    step.signature = signature(flatten(atree));
    step.skipped = skipped;
    adapterSteps.push(step);
  }
  const adapter = {steps: adapterSteps, tree: flatten(atree)};
  return {raw, adapter};
}

const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const cases = input.cases.map(runCase);
  process.stdout.write(JSON.stringify({version, cases}));
});
