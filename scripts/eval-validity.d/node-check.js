// Counts how many inputs node accepts as JavaScript, for scripts/eval-validity: the verdict of
// `node --check FILE.js` on each, in one node process for all of them.
//
// Usage: node --experimental-vm-modules node-check.js [--verbose N] FILES_OR_DIRS...
//
// `node --check` on a .js file compiles it as a CommonJS module: the source becomes the body of
// a function with the parameters exports, require, module, __filename, __dirname (so a
// top-level `return` is accepted), without running it. vm.compileFunction with those
// parameters is what node's loader does; a leading `#!` line is accepted as node accepts it.
// An input that does not compile so is compiled as an ES module (see `check`); run node with
// --experimental-vm-modules for that.
// It agrees with `node --check` (checked on generated inputs, verdicts and messages; see the
// comparison mode below). Prints `accepted: A of N (P%)` as its last line; with --verbose N, the
// first N rejected inputs and the most common messages go to standard error.
//
// `node node-check.js --compare FILES_OR_DIRS...` runs the real `node --check` on every input
// as well and prints how many verdicts differ (slow: one process per input).
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');

const PARAMS = ['exports', 'require', 'module', '__filename', '__dirname'];

function check(file) {
  let source = fs.readFileSync(file, 'utf8');
  // node strips a hashbang line before compiling a CommonJS module (V8 accepts one only at the
  // start of a script, not of a function body); keep the line count.
  if (source.startsWith('#!')) {
    const end = source.search(/[\n\r\u2028\u2029]/);
    source = end < 0 ? '' : source.slice(end);
  }
  try {
    vm.compileFunction(source, PARAMS, { filename: file });
    return null;
  } catch (e) {
    // The js grammar makes scripts and modules (`program = script | module`): what does not
    // compile as a script is compiled again as an ES module (strict, with import/export and
    // top-level await), as node's module detection does for a .js file that has module syntax
    // (--experimental-detect-module). Constructing a vm.SourceTextModule parses the module
    // without linking or running it; node needs --experimental-vm-modules for it.
    if (vm.SourceTextModule === undefined) return `${e.name}: ${e.message}`;
    try {
      new vm.SourceTextModule(source, { identifier: file });
      return null;
    } catch (m) {
      return `${e.name}: ${e.message} (as a module: ${m.name}: ${m.message})`;
    }
  }
}

function inputs(args) {
  const files = [];
  for (const a of args) {
    if (fs.statSync(a).isDirectory()) {
      for (const f of fs.readdirSync(a).sort()) {
        const p = path.join(a, f);
        if (fs.statSync(p).isFile()) files.push(p);
      }
    } else {
      files.push(a);
    }
  }
  return files;
}

function main() {
  const args = process.argv.slice(2);
  let verbose = 0;
  let compare = false;
  const paths = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--verbose') verbose = Number(args[++i]);
    else if (args[i] === '--compare') compare = true;
    else paths.push(args[i]);
  }
  const files = inputs(paths);
  let accepted = 0;
  let differ = 0;
  const failures = [];
  for (const f of files) {
    const error = check(f);
    if (error === null) accepted++;
    else failures.push([f, error]);
    if (compare) {
      const real = require('child_process').spawnSync(process.execPath, ['--check', f]);
      if ((real.status === 0) !== (error === null)) {
        differ++;
        console.error(`differs: ${f}: node --check ${real.status === 0 ? 'accepts' : 'rejects'}, here: ${error}`);
      }
    }
  }
  if (verbose > 0 && failures.length > 0) {
    console.error(`first ${Math.min(verbose, failures.length)} of ${failures.length} rejected inputs (node):`);
    for (const [f, e] of failures.slice(0, verbose)) console.error(`  ${f}: ${e}`);
    const counts = new Map();
    for (const [, e] of failures) {
      const key = e.replace(/'[^'\n]*'/g, "'…'").replace(/\d+/g, 'N');
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    const rows = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    console.error(`most common node errors (${rows.length} distinct):`);
    for (const [e, n] of rows.slice(0, 15)) console.error(`  ${String(n).padStart(6)}  ${e}`);
  }
  if (compare) console.log(`differ from node --check: ${differ} of ${files.length}`);
  const percent = files.length ? (100 * accepted) / files.length : 0;
  console.log(`accepted: ${accepted} of ${files.length} (${percent.toFixed(1)}%)`);
}

main();
