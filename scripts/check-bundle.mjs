#!/usr/bin/env node
// check-bundle.mjs: an independent check of a Parley proof bundle
// (parley-proof-bundle/2, docs/ledger.md) from RFC 6962 alone, with
// nothing but Node.js (no npm packages, no Parley code).
//
//   node scripts/check-bundle.mjs BUNDLE.json
//   node scripts/check-bundle.mjs --self-test
//
// For every bundled entry it recomputes the leaf hash SHA-256(0x00 ||
// JCS(entry)) (RFC 6962 section 2.1; JCS is RFC 8785: members sorted by
// name, recursively, then JSON.stringify) and the tree's root from the
// entry's inclusion proof (RFC 9162 section 2.1.3.2, the verification
// of RFC 6962 section 2.1.1's audit paths), and holds it to the bundle's
// treeHead.root; it checks that seqs grow and each entry says its seq;
// and it checks the anchor's consistency proof from anchor.root at
// anchor.size to treeHead.root at treeHead.size (RFC 9162 section
// 2.1.4.2). It does not check signatures, identity links or envelopes
// (parley bundle verify does). --self-test runs the RFC 6962 test vectors
// of certificate transparency (as transparency-dev/merkle carries them).
//
// Exit status 0: every proof holds ("ok ..." on stdout); 1: the first
// failure is printed as "FAIL <check>: <why>"; 2: usage or unreadable
// file.
//
// Numbers in entries must be integers below 2^53 (JSON.parse reads them
// as doubles); Parley writes larger integers as strings.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

class CheckError extends Error {
  constructor(check, msg) {
    super(msg);
    this.check = check;
  }
}

const fail = (check, msg) => {
  throw new CheckError(check, msg);
};

const sha256 = (...parts) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};
const leafHash = (bytes) => sha256(Buffer.from([0]), bytes);
const nodeHash = (l, r) => sha256(Buffer.from([1]), l, r);

// jcs returns the RFC 8785 canonical text of a parsed JSON value.
export function jcs(v) {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(jcs).join(",") + "]";
  // Default sort compares UTF-16 code units, as RFC 8785 section 3.2.3 asks.
  return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + jcs(v[k])).join(",") + "}";
}

function hash32(s, what) {
  if (typeof s !== "string" || !/^0x[0-9a-f]{64}$/.test(s)) fail("malformed", `${what}: want a 0x-prefixed 32-byte lowercase hex hash, got ${JSON.stringify(s)}`);
  return Buffer.from(s.slice(2), "hex");
}

function uint(n, what) {
  if (!Number.isSafeInteger(n) || n < 0) fail("malformed", `${what}: want a non-negative integer, got ${JSON.stringify(n)}`);
  return BigInt(n);
}

const lsb = (x) => (x & 1n) === 1n;

// rootFromInclusion returns the root that leaf (its hash) at index in a
// tree of size gives with the audit path proof (RFC 9162 2.1.3.2), or
// null when the proof does not fit index and size.
export function rootFromInclusion(index, size, leaf, proof) {
  if (index >= size) return null;
  let fn = index;
  let sn = size - 1n;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0n) return null;
    if (lsb(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!lsb(fn)) {
        while (!(lsb(fn) || fn === 0n)) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n ? r : null;
}

// verifyConsistency reports whether proof shows the tree of size1 with
// root1 to be a prefix of the tree of size2 with root2 (RFC 9162
// 2.1.4.2).
export function verifyConsistency(size1, size2, root1, root2, proof) {
  if (size1 > size2) return false;
  if (size1 === size2) return proof.length === 0 && root1.equals(root2);
  if (size1 === 0n) return proof.length === 0; // the empty tree is a prefix of every tree
  if (proof.length === 0) return false;
  let path = proof;
  if ((size1 & (size1 - 1n)) === 0n) path = [root1, ...proof]; // size1 is a power of two
  let fn = size1 - 1n;
  let sn = size2 - 1n;
  while (lsb(fn)) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if (lsb(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!lsb(fn)) {
        while (!(lsb(fn) || fn === 0n)) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return fr.equals(root1) && sr.equals(root2) && sn === 0n;
}

// checkBundle checks a parsed bundle and returns a summary line.
export function checkBundle(b) {
  if (b === null || typeof b !== "object" || Array.isArray(b)) fail("malformed", "the bundle is not a JSON object");
  if (b.format !== "parley-proof-bundle/2") fail("format", `format ${JSON.stringify(b.format)}, want "parley-proof-bundle/2"`);
  const th = b.treeHead;
  if (th === null || typeof th !== "object") fail("malformed", "no treeHead");
  const size = uint(th.size, "treeHead.size");
  const root = hash32(th.root, "treeHead.root");
  if (size === 0n) fail("malformed", "treeHead.size is 0");
  if (!Array.isArray(b.entries) || b.entries.length === 0) fail("malformed", "no entries");
  let last = 0n;
  b.entries.forEach((item, i) => {
    const where = `entries[${i}]`;
    if (item === null || typeof item !== "object") fail("malformed", `${where} is not an object`);
    const seq = uint(item.seq, `${where}.seq`);
    if (item.entry === null || typeof item.entry !== "object" || Array.isArray(item.entry)) fail("malformed", `${where}.entry is not an object`);
    if (item.entry.seq !== item.seq) fail("seq_mismatch", `${where}: the entry says seq ${item.entry.seq}, the bundle ${item.seq}`);
    if (seq <= last) fail("out_of_order", `${where}: seq ${seq} after ${last}`);
    if (seq > size) fail("bad_inclusion", `entry ${seq} is beyond the tree head's ${size} entries`);
    last = seq;
    if (!Array.isArray(item.proof)) fail("malformed", `${where}.proof is not a list`);
    const proof = item.proof.map((h, j) => hash32(h, `${where}.proof[${j}]`));
    const leaf = leafHash(Buffer.from(jcs(item.entry), "utf8"));
    const got = rootFromInclusion(seq - 1n, size, leaf, proof);
    if (got === null || !got.equals(root)) {
      fail("bad_inclusion", `entry ${seq}: its inclusion proof gives ${got ? "0x" + got.toString("hex") : "no root (the proof does not fit the size)"}, the tree head's root is ${th.root}`);
    }
  });
  let anchorLine = "no anchor";
  if (b.anchor !== null && b.anchor !== undefined) {
    const a = b.anchor;
    const asize = uint(a.size, "anchor.size");
    const aroot = hash32(a.root, "anchor.root");
    if (!Array.isArray(a.consistency)) fail("malformed", "anchor.consistency is not a list");
    const proof = a.consistency.map((h, j) => hash32(h, `anchor.consistency[${j}]`));
    if (!verifyConsistency(asize, size, aroot, root, proof)) {
      fail("inconsistent", `the anchored tree of ${asize} entries (root ${a.root}) is not proved a prefix of the tree head's ${size} entries (root ${th.root})`);
    }
    anchorLine = `anchor at size ${asize} consistent with the head`;
  }
  return `ok ${b.entries.length} entries, each included in the tree of ${size} entries with root ${th.root}; ${anchorLine}`;
}

// The RFC 6962 test vectors (certificate transparency's, as
// transparency-dev/merkle v0.0.2 carries them in testonly and proof).
function selfTest() {
  const leaves = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map((h) => Buffer.from(h, "hex"));
  const roots = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
  ].map((h) => Buffer.from(h, "hex"));
  const hx = (l) => l.map((h) => Buffer.from(h, "hex"));
  const inclusion = [
    [0, 1, []],
    [0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]],
    [5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b", "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0", "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]],
    [2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]],
    [1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]],
  ];
  const consistency = [
    [1, 1, []],
    [1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]],
    [6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a", "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0", "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]],
    [2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]],
    [6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a", "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f", "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]],
  ];
  let n = 0;
  for (const [index, size, proof] of inclusion) {
    const got = rootFromInclusion(BigInt(index), BigInt(size), leafHash(leaves[index]), hx(proof));
    if (got === null || !got.equals(roots[size])) fail("self_test", `inclusion of leaf ${index} in ${size}`);
    // A changed proof, or the wrong leaf, does not give the root.
    if (proof.length > 0) {
      const bad = hx(proof);
      bad[0] = sha256(bad[0]);
      const r = rootFromInclusion(BigInt(index), BigInt(size), leafHash(leaves[index]), bad);
      if (r !== null && r.equals(roots[size])) fail("self_test", `a changed inclusion proof of leaf ${index} in ${size} verified`);
    }
    const other = rootFromInclusion(BigInt(index), BigInt(size), leafHash(Buffer.from("ff", "hex")), hx(proof));
    if (other !== null && other.equals(roots[size])) fail("self_test", `another leaf verified at ${index} in ${size}`);
    n++;
  }
  for (const [s1, s2, proof] of consistency) {
    if (!verifyConsistency(BigInt(s1), BigInt(s2), roots[s1], roots[s2], hx(proof))) fail("self_test", `consistency ${s1} to ${s2}`);
    if (s1 !== s2 && verifyConsistency(BigInt(s1), BigInt(s2), roots[s1 - 1], roots[s2], hx(proof))) fail("self_test", `consistency ${s1} to ${s2} from another root verified`);
    if (s1 !== s2 && verifyConsistency(BigInt(s1), BigInt(s2), roots[s1], roots[s2 - 1], hx(proof))) fail("self_test", `consistency ${s1} to ${s2} to another root verified`);
    n++;
  }
  // JCS: members sorted by UTF-16 code units, recursively; no whitespace.
  const j = jcs(JSON.parse('{"b":[1,{"z":null,"a":"\\u00e9"}],"a":true,"\\u20ac":1,"\\ud83d\\ude00":2}'));
  if (j !== '{"a":true,"b":[1,{"a":"é","z":null}],"€":1,"😀":2}') fail("self_test", `jcs gave ${j}`);
  return `ok self-test: ${n} RFC 6962 proofs and JCS`;
}

function main(argv) {
  if (argv.length !== 1) {
    console.error("usage: node scripts/check-bundle.mjs BUNDLE.json | --self-test");
    return 2;
  }
  try {
    if (argv[0] === "--self-test") {
      console.log(selfTest());
      return 0;
    }
    let text;
    try {
      text = readFileSync(argv[0], "utf8");
    } catch (e) {
      console.error(`check-bundle: ${e.message}`);
      return 2;
    }
    let b;
    try {
      b = JSON.parse(text);
    } catch (e) {
      fail("malformed", `not JSON: ${e.message}`);
    }
    console.log(checkBundle(b));
    return 0;
  } catch (e) {
    if (e instanceof CheckError) {
      console.log(`FAIL ${e.check}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

process.exitCode = main(process.argv.slice(2));
