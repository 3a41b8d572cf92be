// Checks envelope-vectors.json with an implementation other than Parley's
// Go code: Node's crypto for SHA-256 and ed25519, ethers for EIP-712.
//
//   node negotiation/testdata/vectors/check-vectors.mjs
//
// Node has no JCS library, so this script takes the jcs strings as given
// and checks everything computed from them; negotiation/golden_test.go
// checks JCS(input) == jcs. It exits non-zero on any mismatch.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash, createPublicKey, verify } from "node:crypto";
import { ethers } from "ethers";

const here = dirname(fileURLToPath(import.meta.url));
const v = JSON.parse(readFileSync(join(here, "envelope-vectors.json"), "utf8"));
const problems = [];
const check = (what, ok) => { if (!ok) problems.push(what); };

// RFC 4648 base32, lowercase, no padding (multibase "b").
function base32(buf) {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let bits = 0, acc = 0, out = "";
  for (const byte of buf) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(acc << (5 - bits)) & 31];
  return out;
}

for (const e of v.envelopes) {
  const digest = createHash("sha256").update(Buffer.from(e.jcs, "utf8")).digest();
  check(`${e.name}: sha256`, "0x" + digest.toString("hex") === e.sha256);
  // CIDv1 = varint(1) || varint(0x0200 json) || multihash(0x12 sha2-256, 32 bytes).
  const cid = "b" + base32(Buffer.concat([Buffer.from([0x01, 0x80, 0x04, 0x12, 0x20]), digest]));
  check(`${e.name}: cid`, cid === e.cid);
  const unsigned = JSON.parse(e.jcs);
  delete unsigned.signature;
  check(`${e.name}: signingBytes are jcs without the signature member`, JSON.stringify(unsigned) === e.signingBytes);
  check(`${e.name}: the signature member of jcs`, JSON.parse(e.jcs).signature === e.signature);
  const pub = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(e.keys.ed25519PublicKey.slice(2), "hex").toString("base64url") }, format: "jwk" });
  check(`${e.name}: ed25519 signature`, verify(null, Buffer.from(e.signingBytes, "utf8"), pub, Buffer.from(e.signature.slice(2), "hex")));
  check(`${e.name}: evm address of the private key`, new ethers.Wallet(e.keys.evmPrivateKey).address === e.keys.evmAddress);
}

const s = v.settlement;
const td = s.typedData;
const types = { Settlement: td.types.Settlement };
const encoder = ethers.TypedDataEncoder.from(types);
check("settlement: typeString", encoder.encodeType("Settlement") === s.typeString);
check("settlement: domainSeparator", ethers.TypedDataEncoder.hashDomain(td.domain) === s.domainSeparator);
check("settlement: structHash", encoder.hash(td.message) === s.structHash);
check("settlement: digest", ethers.TypedDataEncoder.hash(td.domain, types, td.message) === s.digest);
check("settlement: signer", ethers.verifyTypedData(td.domain, types, td.message, s.signature) === s.signer);
const wallet = new ethers.Wallet(s.keys.evmPrivateKey);
check("settlement: deterministic signature", (await wallet.signTypedData(td.domain, types, td.message)) === s.signature);

if (problems.length > 0) {
  for (const p of problems) console.error("check-vectors: mismatch: " + p);
  process.exit(1);
}
console.log(`check-vectors: ok: ${v.envelopes.length} envelope vectors and the settlement vector agree with Node crypto and ethers`);
