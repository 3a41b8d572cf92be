// Reads a JSON array of EIP-712 typed data documents (as `parley settlement
// digest` prints them) on stdin and writes a JSON array of their digests,
// computed by ethers.js (pinned in package-lock.json): an implementation
// Parley did not write. Used by chain's digest cross-check test.
'use strict';
const { TypedDataEncoder } = require('ethers');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { input += c; });
process.stdin.on('end', () => {
  const docs = JSON.parse(input);
  const out = docs.map((td) => {
    const types = Object.assign({}, td.types);
    delete types.EIP712Domain;
    return TypedDataEncoder.hash(td.domain, types, td.message);
  });
  process.stdout.write(JSON.stringify(out));
});
