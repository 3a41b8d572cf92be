#!/usr/bin/env node
// vxp-vectors.mjs: writes the test vectors of the vxp package's DPoP,
// client assertion and JWK checks (vxp/testdata/auth/*.json) with
// libraries nobody here wrote: npm jose and oauth4webapi, pinned in
// package-lock.json. The Go tests (vxp/*_test.go) verify every vector:
// the valid ones pass, the tampered ones fail with the code and reason
// each names.
//
//   node scripts/vxp-vectors.mjs                 # rewrite the vectors
//   node scripts/vxp-vectors.mjs --find-zero-key # search a P-256 key whose
//                                                # x or y starts with 0x00
//
// Keys are fixed (the JWKs below, test keys only, never used anywhere
// else), and so are every iat and jti: oauth4webapi's clock is pinned by
// replacing Date.now and its random jti by its modifyAssertion hook.
// ES256 signatures are randomised, so a rerun changes the signatures and
// nothing else (RS256 and HS256 ones are deterministic); the vectors are
// checked in.

import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as jose from "jose";
import * as oauth from "oauth4webapi";

const NOW = 1800000000; // 2027-01-15T08:00:00Z
const ISSUER = "https://node.example/vxp";
const TOKEN_ENDPOINT = `${ISSUER}/oauth/token`;
const ENDPOINT = `${ISSUER}/v1`;
const REQUESTS = `${ENDPOINT}/requests`;
const CLIENT_ID = "https://agent.example/agent.json";
// The principal's subject: the node's EVM address in its EIP-55 form
// (the EIP-55 specification's first example).
const SUBJECT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const ACCESS_TOKEN = "vxp-at-Jx3kQ9mW2rT7yP1s";

// Fixed test keys (generated once with jose.generateKeyPair("ES256")).
const KEYS = {
  client1: {
    kty: "EC", crv: "P-256",
    x: "DZQkSL-mLiXSWth89rTtX8DBgrQ4328lwO-LIrxjayI",
    y: "hVzwbK4SxG4jjHKQ9ld_QDtCxm13iwONUshyzfc11zA",
    d: "8svhSqWQlMKtKapjTI5VLDUALjKfq1h966AeEk_L3QE",
  },
  client2: {
    kty: "EC", crv: "P-256",
    x: "7EpTO3Z8WRS_BxyBxU5MWp9IBHOD76I7-z8x3f8zOhQ",
    y: "uZer1Evk3tpHtzC4YjbgC_4oNeRGWN-8vhVjsxLGY4E",
    d: "1m5P2wm5SVLKj7C8Y_jriZbbvZrHmeBiEhgEY5L6Ko4",
  },
  dpop: {
    kty: "EC", crv: "P-256",
    x: "dHbL9f_c9pWqdpkzlu0HACsiaKaCO82FB3a4ZpEoH5c",
    y: "H1K4Ntzc3ka_7sebXJUqtPxJqdJ5TFVAFyWgAYCfZbM",
    d: "K0RBPgELDBRFBwCtZ4OyQCCWBK6aWeA4m_WgW6uO-z0",
  },
  other: {
    kty: "EC", crv: "P-256",
    x: "pEVN5uvTTdPHVlxGsgFdXr9tkI7lph0Ylii3p3PUXNE",
    y: "XX9fzau1Grt87Jd0t3TYnhHIf51GXsPW7-SraJxyZnI",
    d: "QNdD5TMYraxCLSyewAa5S2mRu-WL7EP_tV3dVd6YlU0",
  },
  // x starts with a zero byte (found by --find-zero-key after 80 keys).
  zero: {
    kty: "EC", crv: "P-256",
    x: "AB85hnyJK010DpLiNH7vPmZv9CM0raYwMsf49h_BJ4Y",
    y: "pOZ3NtvVqdK2xlRGmAEbPhyXIwfvhUd50RwwzI_8vfE",
    d: "IZ4Fpc8Swoc_13UKHJno8iym0cZe5KxGtKQB_kKJV8Y",
  },
  // An RSA key for the RS256 refusals and a P-384 public key for the
  // crv refusal (generated once with jose.generateKeyPair).
  rsa: {
    kty: "RSA",
    n: "jh7KDmosaNqbAJY8wmSc66R2B2suwBQ0pBeyinNqY99uUGYEBv7fx2uTCUSrRyI3FrHApJgSf31KKvjGk6G0I7ajBb0aE__g3jE7DoN-eKSGaDD_wQWB4eeHM6PTNKh9aQUFKG2l-R56JdhdLovrhSNXs3p_gKQhvb5GNlU0nSBEKMOi0alQwy8396fM4gyRy1dVUv34Dae6lRRoNufIZJLHpmJ6ju2vfX17mpVMAclIZpzIJ0nVnWLd0qcHDzb5OqAQgarDjZwNzfbPKYPlOntqJwuTlU4mAE5zhZz3JxM1DXSdoo10G2k5i-61g6GdYSPWddoleszvCwsAt62HBw",
    e: "AQAB",
    d: "J7FxvZTp0l87624KikCPk0Dbtja5V-xMx4fW1dRmYn6E0O-tMEb_OTNSXcRQEg38VNpQc6gFgpX7oQTacWE4bsETxwaJwgw1Qdl-JQ-Uwx0wbOlChSaEoBOKL2ISGyLz4-EDD8eQE4PvmaJUZCuwG_9C_123PraYteXutj4V88wkkxv0pNNGStdtppUUrydASfu-6JTiuvJTLv-zK-XFLm4oF2qhVUKzsEu7tKJpeJYj9k-MszS5U-kp4nWVkwA5AVcLcY0dQ5QLRz_GKdboWtr_nWvbPQKdfrnGRvQlXcPunfPWIvrUGbbpF2Ar7lEnOvTtIudP1Z3cCkPUDS7p",
    p: "x-OTGoCLcRWTAt3b3BS5gsy-unI0g5MC5IIAmA-MUHCvtz526Hm2yuRj69xnLzYyb577UZbHCDTZymOIrs3-y7RzmBDxQEMUqxc433ddpUpiZpINkVSifrusfn9tCYsp8B7Oxo5UwiNehAv2JdwKp_ko4qtB4QfL1FHgQCVtFyk",
    q: "tgPW6d9T30HILC1zZDYbyyxNSrSmY0Aq54Kzjxiv0S4-8eT5GT7HxlipDte3iZ7W5SMbJ8G4x-q9BdhNAGoW5BqJYfFGu3MDmO76najKsdC43hf281wAUVG72F7hbyYTKoARa1joQrBHiXCf5kb1idL_wx9YAVv81FgMyi31Yq8",
    dp: "NdtxdUCRUaTYeXtBk-jZmw6DjUTcNV9U9jC47D-0NLBIB_2CmFzDDaO_8HrwKl5V9JFHcdJISkPDMq7i0waZ0lUKmDxoZEIuvXKCVmOZDcIfBTfxA-lj5vW2Ilc_D8U5RYNnf0Q2PiC9hKKcbdL95AhUJc6y72jkWI6-90mePRE",
    dq: "Vo9G4pwpp_ABwTiwOsUcvKfJ7jAxPNwkS0s2F2RXILTMjH8nE6Fuol5Br-RYzaLzca8bV_Hh7XkuAZyXKg5J6prQIPr8d2LAIDfuiZHfK2cms8BT2fIz2Hh1S_X7Yb-Kt9iF8DYs5qIssykTchDm7m-g4GuEj8juWRGyq2fl3dM",
    qi: "OrVlTK1c7pd_DaZhgg24K-7IEswqTfXZibWq6759jNOJn13roBqNbPasZT9LOQIqD1ypPhhZtI0GQBksH4XvyEEd-AcaRSBe9hhPAbs4X5NcnZ1T38yiT8pSk80pLACBB0TsZreQ35fUzQrjud91QdRi5mtOU20p76ix2MP_mV0",
  },
  p384: {
    kty: "EC",
    x: "b_hG9i3yReKWaGHD4aFVYg6qWZgMpeG9Gqt-hN46UD9SUF5O_n7ulwmtPrutLabY",
    y: "B9gZobV3XNGnocS05jm9aS_pnuvDo5DTzVbDjWX0Ezk12h_SDoDief5VbsPLL4Ki",
    crv: "P-384",
  },
};

const b64u = (b) => Buffer.from(b).toString("base64url");
const unb64u = (s) => Buffer.from(s, "base64url");
const pub = ({ kty, crv, x, y }) => ({ kty, crv, x, y });
const enc = (o) => b64u(JSON.stringify(o));
const rsaPublic = () => ({ kty: "RSA", n: KEYS.rsa.n, e: KEYS.rsa.e });

async function findZeroKey() {
  for (let tries = 1; ; tries++) {
    const { privateKey } = await jose.generateKeyPair("ES256", { extractable: true });
    const k = await jose.exportJWK(privateKey);
    if (unb64u(k.x)[0] === 0 || unb64u(k.y)[0] === 0) {
      console.log(JSON.stringify({ tries, key: k }, null, 2));
      return;
    }
  }
}

const priv = async (name) => jose.importJWK(KEYS[name], "ES256");
async function keyPair(name) {
  const publicKey = await crypto.subtle.importKey(
    "jwk", pub(KEYS[name]), { name: "ECDSA", namedCurve: "P-256" }, true, ["verify"]);
  return { privateKey: await priv(name), publicKey };
}

// sign returns a compact JWS of header and claims signed by key name
// with ES256 (jose's CompactSign, so headers are exactly as given).
async function sign(header, claims, name) {
  return new jose.CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader(header)
    .sign(await priv(name));
}
async function signHS256(header, claims) {
  return new jose.CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader(header)
    .sign(new TextEncoder().encode("a-shared-secret-of-32-bytes-long"));
}
const unsigned = (header, claims) => `${enc(header)}.${enc(claims)}.`;
// flipSignature changes one character in the middle of the signature.
function flipSignature(jws) {
  const [h, p, s] = jws.split(".");
  const i = Math.floor(s.length / 2);
  return `${h}.${p}.${s.slice(0, i)}${s[i] === "A" ? "B" : "A"}${s.slice(i + 1)}`;
}
// swapPayload keeps the header and signature of jws with other claims.
function swapPayload(jws, claims) {
  const [h, , s] = jws.split(".");
  return `${h}.${enc(claims)}.${s}`;
}

// capture runs an oauth4webapi request through a fetch that records it
// and answers with the given response, never touching a network.
function capturingFetch(respond) {
  const seen = [];
  const f = async (url, init) => {
    seen.push({ url, headers: init.headers, body: init.body ? String(init.body) : "" });
    return respond(url, init);
  };
  return { f, seen };
}

async function thumbprint(jwk) {
  return jose.calculateJwkThumbprint(pub(jwk), "sha256");
}

async function jwkVectors() {
  const cases = [];
  for (const name of ["client1", "client2", "dpop", "other", "zero"]) {
    cases.push({ name: `valid_${name}`, jwk: pub(KEYS[name]), thumbprint: await thumbprint(KEYS[name]) });
  }
  cases.push({ name: "valid_with_kid_alg_use", jwk: { ...pub(KEYS.client1), kid: "agent-1", alg: "ES256", use: "sig" }, thumbprint: await thumbprint(KEYS.client1) });
  const zx = unb64u(KEYS.zero.x);
  const bad = {
    private_d: KEYS.client1,
    symmetric_k: { ...pub(KEYS.client1), k: "c2VjcmV0" },
    kty_rsa: rsaPublic(),
    kty_oct: { kty: "oct", k: "c2VjcmV0" },
    crv_p384: KEYS.p384,
    alg_es384: { ...pub(KEYS.client1), alg: "ES384" },
    use_enc: { ...pub(KEYS.client1), use: "enc" },
    x_leading_zero_stripped: { ...pub(KEYS.zero), x: b64u(zx.subarray(1)) },
    x_padded: { ...pub(KEYS.client1), x: KEYS.client1.x + "=" },
    x_33_bytes: { ...pub(KEYS.client1), x: b64u(Buffer.concat([Buffer.from([0]), unb64u(KEYS.client1.x)])) },
    y_missing: { kty: "EC", crv: "P-256", x: KEYS.client1.x },
    not_on_curve: { ...pub(KEYS.client1), y: KEYS.client2.y },
  };
  for (const [name, jwk] of Object.entries(bad)) cases.push({ name, jwk, invalid: true });
  if (zx[0] !== 0) throw new Error("the zero key's x must start with a zero byte");
  return { cases };
}

async function dpopVectors() {
  const cases = [];
  const add = (c) => cases.push({ method: "POST", url: TOKEN_ENDPOINT, ...c });
  let n = 0;
  const fixedJti = (prefix) => ({ [oauth.modifyAssertion]: (_h, p) => { p.jti = `${prefix}-${++n}`; } });
  const as = { issuer: ISSUER, token_endpoint: TOKEN_ENDPOINT };
  const client = { client_id: CLIENT_ID };
  const none = oauth.None();

  // oauth4webapi at the token endpoint, first without a nonce, then
  // after the server answered use_dpop_nonce with DPoP-Nonce.
  {
    const dpop = oauth.DPoP(client, await keyPair("dpop"), fixedJti("o4w-token"));
    const { f, seen } = capturingFetch(() => new Response(JSON.stringify({ error: "use_dpop_nonce" }), {
      status: 400, headers: { "content-type": "application/json", "dpop-nonce": "nonce-Zq3" } }));
    for (let i = 0; i < 2; i++) {
      await oauth.genericTokenEndpointRequest(as, client, none, "urn:ietf:params:oauth:grant-type:jwt-bearer",
        { assertion: "x" }, { DPoP: dpop, [oauth.customFetch]: f });
    }
    const jkt = await thumbprint(KEYS.dpop);
    add({ name: "o4w_token", proof: seen[0].headers.dpop, jkt });
    add({ name: "o4w_token_nonce", proof: seen[1].headers.dpop, nonce: "nonce-Zq3", jkt });
    add({ name: "nonce_missing", proof: seen[0].headers.dpop, nonce: "nonce-Zq3", code: "use_dpop_nonce", reason: "nonce" });
    add({ name: "nonce_stale", proof: seen[1].headers.dpop, nonce: "nonce-Zq4", code: "use_dpop_nonce", reason: "nonce" });
  }
  // oauth4webapi at the resource, with ath; and with the zero key.
  for (const key of ["dpop", "zero"]) {
    const dpop = oauth.DPoP(client, await keyPair(key), fixedJti(`o4w-resource-${key}`));
    const { f, seen } = capturingFetch(() => new Response("{}", { status: 200 }));
    await oauth.protectedResourceRequest(ACCESS_TOKEN, "POST", new URL(REQUESTS), new Headers(), "{}",
      { DPoP: dpop, [oauth.customFetch]: f });
    if (seen[0].headers.authorization !== `DPoP ${ACCESS_TOKEN}`) throw new Error("not a DPoP authorization");
    add({ name: `o4w_resource_${key}`, proof: seen[0].headers.dpop, url: REQUESTS, access_token: ACCESS_TOKEN, jkt: await thumbprint(KEYS[key]) });
    if (key === "dpop") {
      add({ name: "ath_other_token", proof: seen[0].headers.dpop, url: REQUESTS, access_token: ACCESS_TOKEN + "x", code: "invalid_dpop_proof", reason: "ath" });
    }
  }

  // jose-made proofs: one valid with a normalised htu, then one rule
  // broken per case.
  const header = { typ: "dpop+jwt", alg: "ES256", jwk: pub(KEYS.dpop) };
  const claims = { jti: "jose-1", htm: "POST", htu: TOKEN_ENDPOINT, iat: NOW };
  const bad = (name, reason, proof, extra = {}) => add({ name, proof, code: "invalid_dpop_proof", reason, ...extra });
  add({ name: "jose_htu_normalised", proof: await sign(header, { ...claims, htu: "HTTPS://Node.EXAMPLE:443/vxp/oauth/token?x=1#f" }, "dpop"),
    url: `${TOKEN_ENDPOINT}?grant=1`, jkt: await thumbprint(KEYS.dpop) });
  add({ name: "jose_iat_edges", proof: await sign(header, { ...claims, iat: NOW - 120 }, "dpop"), jkt: await thumbprint(KEYS.dpop) });
  const valid = await sign(header, claims, "dpop");
  add({ name: "jose_valid", proof: valid, jkt: await thumbprint(KEYS.dpop) });

  const rsaPriv = await jose.importJWK(KEYS.rsa, "RS256");
  const rsaJwk = rsaPublic();
  bad("typ_jwt", "typ", await sign({ ...header, typ: "JWT" }, claims, "dpop"));
  bad("typ_missing", "typ", await sign({ alg: "ES256", jwk: header.jwk }, claims, "dpop"));
  bad("alg_none", "alg", unsigned({ ...header, alg: "none" }, claims));
  bad("alg_hs256", "alg", await signHS256({ ...header, alg: "HS256" }, claims));
  bad("alg_rs256", "alg", await new jose.CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ typ: "dpop+jwt", alg: "RS256", jwk: rsaJwk }).sign(rsaPriv));
  bad("jwk_missing", "jwk_missing", await sign({ typ: "dpop+jwt", alg: "ES256" }, claims, "dpop"));
  bad("jwk_private", "jwk", await sign({ ...header, jwk: KEYS.dpop }, claims, "dpop"));
  bad("jwk_rsa", "jwk", await sign({ ...header, jwk: rsaJwk }, claims, "dpop"));
  bad("jwk_zero_stripped", "jwk", await sign({ ...header, jwk: { ...pub(KEYS.zero), x: b64u(unb64u(KEYS.zero.x).subarray(1)) } }, claims, "zero"));
  bad("jwk_of_another_key", "signature", await sign({ ...header, jwk: pub(KEYS.other) }, claims, "dpop"));
  bad("signature_flipped", "signature", flipSignature(valid));
  bad("payload_swapped", "signature", swapPayload(valid, { ...claims, htm: "GET" }));
  bad("htm_get", "htm", await sign(header, { ...claims, htm: "GET" }, "dpop"));
  bad("htm_lowercase", "htm", await sign(header, { ...claims, htm: "post" }, "dpop"));
  bad("htm_missing", "htm", await sign(header, { jti: "jose-1", htu: TOKEN_ENDPOINT, iat: NOW }, "dpop"));
  bad("htu_other_path", "htu", await sign(header, { ...claims, htu: `${ISSUER}/oauth/device` }, "dpop"));
  bad("htu_other_host", "htu", await sign(header, { ...claims, htu: "https://evil.example/vxp/oauth/token" }, "dpop"));
  bad("htu_http", "htu", await sign(header, { ...claims, htu: "http://node.example/vxp/oauth/token" }, "dpop"));
  bad("htu_other_port", "htu", await sign(header, { ...claims, htu: "https://node.example:8443/vxp/oauth/token" }, "dpop"));
  bad("htu_relative", "htu", await sign(header, { ...claims, htu: "/vxp/oauth/token" }, "dpop"));
  bad("iat_too_old", "iat", await sign(header, { ...claims, iat: NOW - 121 }, "dpop"));
  bad("iat_future", "iat", await sign(header, { ...claims, iat: NOW + 31 }, "dpop"));
  bad("iat_missing", "iat", await sign(header, { jti: "jose-1", htm: "POST", htu: TOKEN_ENDPOINT }, "dpop"));
  bad("iat_string", "malformed", await sign(header, { ...claims, iat: String(NOW) }, "dpop"));
  bad("jti_missing", "jti", await sign(header, { htm: "POST", htu: TOKEN_ENDPOINT, iat: NOW }, "dpop"));
  bad("jti_empty", "jti", await sign(header, { ...claims, jti: "" }, "dpop"));
  bad("ath_missing", "ath", await sign(header, { ...claims, htu: REQUESTS }, "dpop"), { url: REQUESTS, access_token: ACCESS_TOKEN });
  bad("not_compact", "malformed", valid.split(".").slice(0, 2).join("."));
  return { now: NOW, cases };
}

async function assertionVectors() {
  const cases = [];
  const as = { issuer: ISSUER, token_endpoint: TOKEN_ENDPOINT };
  const client = { client_id: CLIENT_ID };
  // oauth4webapi's PrivateKeyJwt, captured from the token request body.
  {
    let n = 0;
    const auth = oauth.PrivateKeyJwt({ key: await priv("client1"), kid: "agent-1" },
      { [oauth.modifyAssertion]: (_h, p) => { p.jti = `o4w-client-${++n}`; } });
    const { f, seen } = capturingFetch(() => new Response("{}", { status: 400 }));
    await oauth.genericTokenEndpointRequest(as, client, auth, "urn:ietf:params:oauth:grant-type:jwt-bearer",
      { assertion: "x" }, { [oauth.customFetch]: f });
    const body = new URLSearchParams(seen[0].body);
    if (body.get("client_assertion_type") !== "urn:ietf:params:oauth:client-assertion-type:jwt-bearer") throw new Error("assertion type");
    cases.push({ name: "o4w_private_key_jwt", kind: "client", assertion: body.get("client_assertion"), kid: "agent-1" });
  }
  const header = { alg: "ES256", kid: "agent-1" };
  const claims = { iss: CLIENT_ID, sub: CLIENT_ID, aud: ISSUER, exp: NOW + 60, iat: NOW, nbf: NOW, jti: "jose-client-1" };
  const grant = { iss: CLIENT_ID, sub: SUBJECT, aud: ISSUER, exp: NOW + 60, iat: NOW, jti: "jose-grant-1" };
  const ok = (name, kind, assertion, kid) => cases.push({ name, kind, assertion, kid });
  const bad = (name, kind, reason, assertion) => cases.push({ name, kind, assertion, code: kind === "client" ? "invalid_client" : "invalid_grant", reason });

  const valid = await sign(header, claims, "client1");
  ok("jose_valid", "client", valid, "agent-1");
  ok("aud_token_endpoint", "client", await sign({ ...header, kid: "agent-2" }, { ...claims, aud: TOKEN_ENDPOINT }, "client2"), "agent-2");
  ok("no_kid_second_key", "client", await sign({ alg: "ES256" }, claims, "client2"), "agent-2");
  ok("zero_key", "client", await sign({ ...header, kid: "agent-zero" }, claims, "zero"), "agent-zero");
  ok("exp_at_limit", "client", await sign(header, { ...claims, exp: NOW + 300, iat: undefined, nbf: undefined }, "client1"), "agent-1");
  ok("typ_jwt", "client", await sign({ ...header, typ: "JWT" }, claims, "client1"), "agent-1");

  bad("alg_none", "client", "alg", unsigned({ alg: "none" }, claims));
  bad("alg_hs256", "client", "alg", await signHS256({ alg: "HS256", kid: "agent-1" }, claims));
  bad("jwk_in_header", "client", "jwk_header", await sign({ ...header, jwk: pub(KEYS.other) }, claims, "other"));
  bad("unknown_kid", "client", "kid", await sign({ ...header, kid: "agent-9" }, claims, "client1"));
  bad("kid_of_another_key", "client", "signature", await sign(header, claims, "client2"));
  bad("no_kid_unknown_key", "client", "signature", await sign({ alg: "ES256" }, claims, "other"));
  bad("signature_flipped", "client", "signature", flipSignature(valid));
  bad("payload_swapped", "client", "signature", swapPayload(valid, { ...claims, exp: NOW + 120 }));
  bad("iss_other", "client", "iss", await sign(header, { ...claims, iss: "https://evil.example/agent.json" }, "client1"));
  bad("iss_missing", "client", "iss", await sign(header, { ...claims, iss: undefined }, "client1"));
  bad("sub_other", "client", "sub", await sign(header, { ...claims, sub: SUBJECT }, "client1"));
  bad("aud_other", "client", "aud", await sign(header, { ...claims, aud: "https://node.example/vxp/v1" }, "client1"));
  bad("aud_trailing_slash", "client", "aud", await sign(header, { ...claims, aud: `${ISSUER}/` }, "client1"));
  bad("aud_array", "client", "aud", await sign(header, { ...claims, aud: [ISSUER] }, "client1"));
  bad("aud_missing", "client", "aud", await sign(header, { ...claims, aud: undefined }, "client1"));
  bad("exp_missing", "client", "exp", await sign(header, { ...claims, exp: undefined }, "client1"));
  bad("expired", "client", "expired", await sign(header, { ...claims, exp: NOW - 31, iat: NOW - 90, nbf: NOW - 90 }, "client1"));
  bad("exp_too_far", "client", "exp_too_far", await sign(header, { ...claims, exp: NOW + 331 }, "client1"));
  bad("nbf_future", "client", "nbf", await sign(header, { ...claims, nbf: NOW + 31 }, "client1"));
  bad("iat_future", "client", "iat", await sign(header, { ...claims, iat: NOW + 31 }, "client1"));
  bad("iat_long_before_exp", "client", "iat", await sign(header, { ...claims, iat: NOW - 300 }, "client1"));
  bad("jti_missing", "client", "jti", await sign(header, { ...claims, jti: undefined }, "client1"));

  ok("grant_valid", "grant", await sign(header, grant, "client1"), "agent-1");
  ok("grant_aud_token_endpoint_zero_key", "grant", await sign({ ...header, kid: "agent-zero" }, { ...grant, aud: TOKEN_ENDPOINT }, "zero"), "agent-zero");
  bad("grant_sub_lowercase", "grant", "sub", await sign(header, { ...grant, sub: SUBJECT.toLowerCase() }, "client1"));
  bad("grant_sub_client_id", "grant", "sub", valid);
  bad("grant_sub_missing", "grant", "sub", await sign(header, { ...grant, sub: undefined }, "client1"));
  bad("grant_iss_other", "grant", "iss", await sign(header, { ...grant, iss: "https://evil.example/agent.json" }, "client1"));
  bad("grant_signed_by_other", "grant", "signature", await sign(header, grant, "other"));
  bad("grant_aud_other", "grant", "aud", await sign(header, { ...grant, aud: ENDPOINT }, "client1"));
  bad("grant_expired", "grant", "expired", await sign(header, { ...grant, exp: NOW - 31, iat: NOW - 90 }, "client1"));
  bad("grant_jti_missing", "grant", "jti", await sign(header, { ...grant, jti: undefined }, "client1"));
  bad("grant_alg_hs256", "grant", "alg", await signHS256({ alg: "HS256", kid: "agent-1" }, grant));

  const jwks = { keys: [
    { ...pub(KEYS.client1), kid: "agent-1", alg: "ES256", use: "sig" },
    { ...pub(KEYS.client2), kid: "agent-2" },
    { ...pub(KEYS.zero), kid: "agent-zero" },
  ] };
  return { now: NOW, issuer: ISSUER, token_endpoint: TOKEN_ENDPOINT, client_id: CLIENT_ID, subject: SUBJECT, jwks, cases };
}

async function main() {
  if (process.argv.includes("--find-zero-key")) return findZeroKey();
  // Pin oauth4webapi's clock (epochTime reads Date.now).
  Date.now = () => NOW * 1000;
  const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "vxp", "testdata", "auth");
  mkdirSync(dir, { recursive: true });
  const files = {
    "jwk.json": await jwkVectors(),
    "dpop.json": await dpopVectors(),
    "assertions.json": await assertionVectors(),
  };
  const generator = "scripts/vxp-vectors.mjs (jose 6.2.18, oauth4webapi 3.8.8)";
  for (const [name, v] of Object.entries(files)) {
    writeFileSync(join(dir, name), JSON.stringify({ generator, ...v }, null, 2) + "\n");
    console.log(`wrote vxp/testdata/auth/${name} (${v.cases.length} cases)`);
  }
}

await main();
