// The line protocol of the tests' Node peers (tests/sync/pouch_peer.js, tests/team/drafft_client.js):
// one JSON request a line on stdin, {"id", "cmd", "args"}; one JSON answer a line on stdout,
// {"id", "result"} or {"id", "error": {name, status, message, reason}}. Requests run one at a
// time, in order; the process exits once stdin closes and the last request is answered.
"use strict";

const readline = require("readline");

function serveLines(commands) {
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  let chain = Promise.resolve();
  rl.on("line", (line) => {
    if (!line.trim()) return;
    chain = chain.then(async () => {
      let msg;
      try {
        msg = JSON.parse(line);
        const fn = commands[msg.cmd];
        if (!fn) throw new Error("unknown command " + msg.cmd);
        const result = await fn(msg.args || {});
        process.stdout.write(JSON.stringify({ id: msg.id, result }) + "\n");
      } catch (err) {
        const error = { name: err && err.name, status: err && err.status,
                        message: String(err && (err.message || err)), reason: err && err.reason };
        process.stdout.write(JSON.stringify({ id: msg && msg.id, error }) + "\n");
      }
    });
  });
  rl.on("close", () => { chain.then(() => process.exit(0)); });
}

module.exports = { serveLines };
