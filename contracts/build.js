#!/usr/bin/env node
// Compiles contracts/src with the pinned solc from npm (standard-JSON
// interface) and writes the artifacts the Go bindings are generated from:
//
//   artifacts/<Name>.abi       ABI, pretty JSON
//   artifacts/<Name>.bin       creation bytecode, hex without 0x
//   artifacts/parley.json      combined JSON of the deployable contracts (abigen input)
//   artifacts/testing.json     combined JSON of the contracts under src/test (abigen input)
//
// The output is byte-identical across runs (metadata hash off, sorted keys),
// so `make verify` can fail on any drift. Run from anywhere: paths are
// relative to this file.
'use strict';

const fs = require('fs');
const path = require('path');
const solc = require('solc');

const here = __dirname;
const srcDir = path.join(here, 'src');
const outDir = path.join(here, 'artifacts');
const root = path.join(here, '..');

// The contracts that get bindings, by source file (relative to src).
const DEPLOYABLE = ['TaskRegistry', 'ArbitrationModule', 'IdentityLink', 'TaskScopeRegistry', 'LedgerAnchor'];
const TESTING = ['TestToken', 'ReentrantToken', 'ReentrantReceiver', 'TestCourt'];

function listSources(dir, prefix) {
  const out = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    const rel = prefix ? prefix + '/' + name : name;
    if (fs.statSync(full).isDirectory()) out.push(...listSources(full, rel));
    else if (name.endsWith('.sol')) out.push(rel);
  }
  return out;
}

function findImports(p) {
  const candidates = [path.join(srcDir, p), path.join(root, 'node_modules', p)];
  for (const c of candidates) {
    if (fs.existsSync(c)) return { contents: fs.readFileSync(c, 'utf8') };
  }
  return { error: 'not found: ' + p };
}

const sources = {};
for (const rel of listSources(srcDir, '')) {
  sources[rel] = { content: fs.readFileSync(path.join(srcDir, rel), 'utf8') };
}

const input = {
  language: 'Solidity',
  sources,
  settings: {
    evmVersion: 'cancun',
    viaIR: true,
    optimizer: { enabled: true, runs: 200 },
    metadata: { bytecodeHash: 'none' },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
let failed = false;
for (const e of output.errors || []) {
  if (e.severity === 'error') failed = true;
  process.stderr.write(e.formattedMessage + '\n');
}
if (failed) process.exit(1);

// Finds the one contract called name among the compiled sources.
function contract(name) {
  for (const file of Object.keys(output.contracts).sort()) {
    const c = output.contracts[file][name];
    if (c) return { file, c };
  }
  throw new Error('contract not compiled: ' + name);
}

function combined(names) {
  const contracts = {};
  for (const name of names) {
    const { file, c } = contract(name);
    contracts[file + ':' + name] = {
      abi: c.abi,
      bin: c.evm.bytecode.object,
      'bin-runtime': c.evm.deployedBytecode.object,
    };
  }
  return { contracts, version: solc.version() };
}

fs.mkdirSync(outDir, { recursive: true });
for (const name of [...DEPLOYABLE, ...TESTING]) {
  const { c } = contract(name);
  if (!c.evm.bytecode.object) throw new Error('no bytecode for ' + name);
  fs.writeFileSync(path.join(outDir, name + '.abi'), JSON.stringify(c.abi, null, 2) + '\n');
  fs.writeFileSync(path.join(outDir, name + '.bin'), c.evm.bytecode.object + '\n');
}
fs.writeFileSync(path.join(outDir, 'parley.json'), JSON.stringify(combined(DEPLOYABLE), null, 1) + '\n');
fs.writeFileSync(path.join(outDir, 'testing.json'), JSON.stringify(combined(TESTING), null, 1) + '\n');
process.stderr.write('solc ' + solc.version() + ': ' + (DEPLOYABLE.length + TESTING.length) + ' contracts\n');
