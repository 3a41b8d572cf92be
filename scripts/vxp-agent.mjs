#!/usr/bin/env node
// vxp-agent.mjs: an outside AI agent that drives VXP's native profile
// (seed 002) against a node of `parley devnet`, written from the RFCs
// with libraries nobody at Parley wrote (npm oauth4webapi and jose, pinned
// in package-lock.json) and no Parley code:
//
//   discovery    vxp.json, then the issuer's RFC 8414 metadata (its issuer
//                equal character by character)
//   identity     its own Client ID Metadata Document, served on loopback
//                (client_id = its URL, jwks inline), private_key_jwt
//                (RFC 7523 client assertions), a DPoP key (RFC 9449)
//   token        jwt-bearer (RFC 7523): sub = the principal's EIP-55 EVM
//                address, resource = the endpoint (RFC 8707), DPoP-bound
//   refusals     a token for another resource (invalid_target), the token
//                presented as Bearer (401)
//   request      POST /requests offer.respond on the negotiation ->
//                202 authorization_required naming what is missing
//   device       device authorization (RFC 8628) with exactly those
//                authorization_details (RFC 9396) and a relationship
//                entry; it prints the user code and polls the token while
//                the principal approves with a passkey
//   operate      the same Idempotency-Key re-evaluated to proposed, a
//                counter (revision 2), the stale accept of revision 1
//                (409 terms_changed), the current accept, GET until
//                succeeded, the proof verified with the issuer's JWKS
//   gated        a second request whose accept signs the settlement: it
//                waits in waiting_human until the principal approves
//   revoke       DELETE the relationship: the token is refused (401)
//
// Each step prints one JSON line on stdout ({"step": ..., ...}); a step
// that does not happen as the contract says prints {"step": "failed",
// "at": ..., "error": ...} and the agent exits 1. DPoP nonces are handled
// as oauth4webapi does: a use_dpop_nonce answer is retried with the nonce
// the server sent.
//
//   node scripts/vxp-agent.mjs --devnet DIR/devnet.json --role worker \
//        --negotiation NID [--wait 60] [--pause-at before_stale_accept,...]
//
// --pause-at names steps after which the agent waits for a line on stdin
// (a test compares both nodes' ledgers around the stale accept).

import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createHash, randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import * as jose from "jose";
import * as oauth from "oauth4webapi";

const RAR_CAPABILITY = "https://vxpprotocol.org/rar/capability";
const GRANT_JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

// ---- arguments ----------------------------------------------------------

function parseArgs(argv) {
  const a = { role: "worker", wait: 60, pauseAt: [] };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = argv[i + 1];
    switch (k) {
      case "--devnet": a.devnet = v; i++; break;
      case "--role": a.role = v; i++; break;
      case "--negotiation": a.negotiation = v; i++; break;
      case "--wait": a.wait = Number(v); i++; break;
      case "--pause-at": a.pauseAt = v.split(",").filter(Boolean); i++; break;
      case "--client-name": a.clientName = v; i++; break;
      default: throw new Error(`unknown argument ${k}`);
    }
  }
  if (!a.devnet || !a.negotiation) {
    throw new Error("usage: vxp-agent.mjs --devnet devnet.json --negotiation NID [--role worker] [--wait 60] [--pause-at step,...]");
  }
  return a;
}

// ---- output -------------------------------------------------------------

let current = "start";
function emit(step, data = {}) {
  current = step;
  process.stdout.write(JSON.stringify({ step, ...data }) + "\n");
}

class StepError extends Error {}
function expect(cond, msg) {
  if (!cond) throw new StepError(msg);
}

const stdinLines = (() => {
  let rl, queue = [], waiting = [];
  return () => {
    if (!rl) {
      rl = createInterface({ input: process.stdin });
      rl.on("line", (l) => (waiting.length ? waiting.shift()(l) : queue.push(l)));
      rl.on("close", () => { while (waiting.length) waiting.shift()(null); });
    }
    return queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r));
  };
})();

async function pausePoint(args, step) {
  if (!args.pauseAt.includes(step)) return;
  emit("paused", { at: step });
  const line = await stdinLines();
  expect(line !== null, `stdin closed while paused at ${step}`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- JSON canonicalization (RFC 8785) for terms_hash ---------------------
// The terms hold strings, integers as strings, arrays and objects: ES
// JSON.stringify of a string or number is JCS's, and sort() orders keys by
// UTF-16 code units as JCS does.
function jcs(v) {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(jcs).join(",") + "]";
  return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + jcs(v[k])).join(",") + "}";
}
const sha256hex = (s) => createHash("sha256").update(s, "utf8").digest("hex");

// ---- the agent ----------------------------------------------------------

class Agent {
  constructor(args) {
    this.args = args;
    this.nonces = new Map(); // origin -> last DPoP-Nonce seen (for the device request's proof)
    this.deadline = () => AbortSignal.timeout(this.args.wait * 1000);
    // Every request goes through this fetch: it records DPoP-Nonce.
    this.fetch = async (url, init) => {
      const resp = await fetch(url, { ...init, signal: init?.signal ?? this.deadline() });
      const n = resp.headers.get("dpop-nonce");
      if (n) this.nonces.set(new URL(url).origin, n);
      return resp;
    };
    this.opts = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: this.fetch };
  }

  // discover reads devnet.json, vxp.json and the issuer's metadata.
  async discover() {
    const st = JSON.parse(readFileSync(this.args.devnet, "utf8"));
    const n = st.nodes?.[this.args.role];
    expect(n?.vxp_url && n?.evm_address, `devnet.json names no vxp_url and evm_address for ${this.args.role}`);
    this.base = n.vxp_url;
    this.subject = n.evm_address;
    const resp = await this.fetch(`${this.base}/.well-known/vxp.json`, { headers: { accept: "application/json" } });
    expect(resp.status === 200, `vxp.json: ${resp.status}`);
    const doc = await resp.json();
    const host = new URL(this.base).hostname;
    expect(doc.protocol === "vxp" && doc.version === "0.1", `vxp.json protocol ${doc.protocol} ${doc.version}`);
    expect(doc.organization?.domain === host, `organization.domain ${doc.organization?.domain} is not ${host}`);
    expect(!JSON.stringify(doc).includes('"kty"'), "vxp.json carries keys");
    const cap = doc.capabilities.find((c) => c.id === "offer.respond");
    expect(cap && cap.effect === "write" && cap.access === "delegated" && cap.admission === "dynamic" &&
      cap.authorization_details_type === RAR_CAPABILITY && cap.outcome_proof === true, "offer.respond is not offered as the contract says");
    this.doc = doc;
    // RFC 8414: the metadata of the issuer, its issuer equal character by
    // character (oauth4webapi's processDiscoveryResponse checks it).
    const issuer = new URL(doc.issuer);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...this.opts }));
    expect(as.issuer === doc.issuer, `metadata issuer ${as.issuer} is not ${doc.issuer}`);
    expect(as.grant_types_supported?.includes(GRANT_JWT_BEARER) && as.grant_types_supported?.includes("urn:ietf:params:oauth:grant-type:device_code"), "grant types");
    expect(as.token_endpoint_auth_methods_supported?.includes("private_key_jwt"), "private_key_jwt");
    expect(as.dpop_signing_alg_values_supported?.includes("ES256"), "DPoP ES256");
    expect(as.authorization_details_types_supported?.includes(RAR_CAPABILITY), "RAR capability type");
    expect(as.client_id_metadata_document_supported === true, "client ID metadata documents");
    this.as = as;
    this.endpoint = doc.endpoint;
    emit("discovered", { vxp_url: this.base, issuer: as.issuer, endpoint: this.endpoint, token_endpoint: as.token_endpoint, device_authorization_endpoint: as.device_authorization_endpoint, jwks_uri: as.jwks_uri, subject: this.subject });
  }

  // identify makes the client's key and serves its Client ID Metadata
  // Document on loopback; and makes the DPoP key.
  async identify() {
    const { publicKey, privateKey } = await jose.generateKeyPair("ES256", { extractable: true });
    const pub = await jose.exportJWK(publicKey);
    pub.kid = await jose.calculateJwkThumbprint(pub);
    pub.alg = "ES256";
    pub.use = "sig";
    this.clientKey = { key: privateKey, kid: pub.kid };
    this.fetches = 0;
    this.server = createServer((req, res) => {
      if (req.method !== "GET" || req.url !== "/agent.json") {
        res.writeHead(404).end();
        return;
      }
      this.fetches++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(this.metadata));
    });
    await new Promise((r) => this.server.listen(0, "127.0.0.1", r));
    this.clientID = `http://127.0.0.1:${this.server.address().port}/agent.json`;
    this.metadata = {
      client_id: this.clientID,
      client_name: this.args.clientName ?? "vxp-agent.mjs (oauth4webapi + jose)",
      jwks: { keys: [pub] },
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_signing_alg: "ES256",
      grant_types: [GRANT_JWT_BEARER, "urn:ietf:params:oauth:grant-type:device_code"],
      dpop_bound_access_tokens: true,
    };
    this.client = { client_id: this.clientID, token_endpoint_auth_method: "private_key_jwt" };
    this.clientAuth = oauth.PrivateKeyJwt(this.clientKey);
    this.dpopKeys = await oauth.generateKeyPair("ES256");
    this.dpop = oauth.DPoP(this.client, this.dpopKeys);
    this.jkt = await this.dpop.calculateThumbprint();
    emit("identified", { client_id: this.clientID, kid: pub.kid, dpop_jkt: this.jkt });
  }

  // nonceRetry runs f again when the server asked for a DPoP nonce
  // (use_dpop_nonce), as RFC 9449 section 8 says, at most twice.
  async nonceRetry(f) {
    for (let i = 0; ; i++) {
      try {
        return await f();
      } catch (e) {
        if (i < 2 && oauth.isDPoPNonceError(e)) continue;
        throw e;
      }
    }
  }

  // grantAssertion is the RFC 7523 assertion of the user the agent acts
  // for: iss the client, sub the principal's EVM address, aud the issuer.
  async grantAssertion() {
    return new jose.SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: this.clientKey.kid, typ: "JWT" })
      .setIssuer(this.clientID).setSubject(this.subject).setAudience(this.as.issuer)
      .setIssuedAt().setExpirationTime("2m").setJti(randomUUID())
      .sign(this.clientKey.key);
  }

  // tokenJWTBearer gets a DPoP-bound token with the jwt-bearer grant.
  async tokenJWTBearer() {
    const tok = await this.nonceRetry(async () => {
      const params = new URLSearchParams({ assertion: await this.grantAssertion(), resource: this.endpoint });
      const resp = await oauth.genericTokenEndpointRequest(this.as, this.client, this.clientAuth, GRANT_JWT_BEARER, params, { DPoP: this.dpop, ...this.opts });
      return oauth.processGenericTokenEndpointResponse(this.as, this.client, resp);
    });
    expect(tok.token_type === "dpop", `token_type ${tok.token_type}`);
    this.token = tok.access_token;
    emit("token", { grant_type: "jwt-bearer", token_type: tok.token_type, expires_in: tok.expires_in, authorization_details: tok.authorization_details ?? [], client_document_fetches: this.fetches });
  }

  // refusals checks two refusals of the issuer and the resource: a token
  // request whose resource is not the endpoint (invalid_target, RFC 8707)
  // and the DPoP-bound token presented as a Bearer token (401).
  async refusals() {
    try {
      await this.nonceRetry(async () => {
        const params = new URLSearchParams({ assertion: await this.grantAssertion(), resource: this.as.issuer });
        const resp = await oauth.genericTokenEndpointRequest(this.as, this.client, this.clientAuth, GRANT_JWT_BEARER, params, { DPoP: this.dpop, ...this.opts });
        return oauth.processGenericTokenEndpointResponse(this.as, this.client, resp);
      });
      throw new StepError("a token for another resource was issued");
    } catch (e) {
      if (!(e instanceof oauth.ResponseBodyError) || e.error !== "invalid_target") throw e;
      emit("invalid_target", { status: e.status, resource: this.as.issuer });
    }
    let status;
    try {
      const resp = await oauth.protectedResourceRequest(this.token, "GET", new URL(`${this.endpoint}/requests/req_none`), new Headers(), null, this.opts);
      status = resp.status;
    } catch (e) {
      if (!(e instanceof oauth.WWWAuthenticateChallengeError)) throw e;
      status = e.status;
    }
    expect(status === 401, `the DPoP-bound token as a Bearer token: ${status}`);
    emit("bearer_refused", { status });
  }

  // call is one resource request with the DPoP-bound token: the status
  // and the parsed body (JSON, or the text of application/jose).
  async call(method, url, { body, headers = {} } = {}) {
    return this.nonceRetry(async () => {
      const h = new Headers(headers);
      h.set("accept", "application/json, application/jose");
      if (body !== undefined) h.set("content-type", "application/json");
      let resp;
      try {
        resp = await oauth.protectedResourceRequest(this.token, method, new URL(url), h, body === undefined ? null : JSON.stringify(body), { DPoP: this.dpop, ...this.opts });
      } catch (e) {
        if (e instanceof oauth.WWWAuthenticateChallengeError && !oauth.isDPoPNonceError(e)) {
          const c = e.cause.find((x) => x.scheme === "dpop") ?? e.cause[0];
          return { status: e.status, body: { error: { code: c?.parameters?.error ?? "invalid_token", message: c?.parameters?.error_description ?? "" } }, challenge: true };
        }
        throw e;
      }
      const type = resp.headers.get("content-type") ?? "";
      const text = await resp.text();
      const parsed = type.startsWith("application/json") && text ? JSON.parse(text) : text;
      // A use_dpop_nonce answer without a challenge header still retries.
      if (resp.status === 401 && parsed?.error?.code === "use_dpop_nonce") {
        throw new oauth.ResponseBodyError("use_dpop_nonce", { cause: { error: "use_dpop_nonce" }, response: resp });
      }
      return { status: resp.status, type, body: parsed };
    });
  }

  // request posts the request body with key.
  async request(key, body) {
    return this.call("POST", `${this.endpoint}/requests`, { body, headers: key === undefined ? {} : { "idempotency-key": key } });
  }

  // dpopProofFor signs a DPoP proof (RFC 9449 section 4.2) for a POST to
  // url with the DPoP key: oauth4webapi sends none with a device
  // authorization request, and the issuer binds the grant to this key.
  async dpopProofFor(url) {
    const jwk = await jose.exportJWK(this.dpopKeys.publicKey);
    const u = new URL(url);
    const claims = { jti: randomUUID(), htm: "POST", htu: `${u.origin}${u.pathname}`, iat: Math.floor(Date.now() / 1000) };
    const nonce = this.nonces.get(u.origin);
    if (nonce) claims.nonce = nonce;
    return new jose.SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } })
      .sign(this.dpopKeys.privateKey);
  }

  // deviceFlow asks for exactly details (and a relationship), prints the
  // user code and polls the token until the principal decided.
  async deviceFlow(details) {
    const rel = this.doc.vxp?.relationship;
    const all = [...details];
    if (rel) all.push({ type: rel.authorization_details_type, company_initiated_actions: [rel.company_initiated_actions[0]] });
    const da = await this.nonceRetry(async () => {
      const params = new URLSearchParams({ authorization_details: JSON.stringify(all), resource: this.endpoint });
      const headers = new Headers({ dpop: await this.dpopProofFor(this.as.device_authorization_endpoint) });
      const resp = await oauth.deviceAuthorizationRequest(this.as, this.client, this.clientAuth, params, { headers, ...this.opts });
      return oauth.processDeviceAuthorizationResponse(this.as, this.client, resp);
    });
    emit("device_authorization", { user_code: da.user_code, verification_uri: da.verification_uri, verification_uri_complete: da.verification_uri_complete, expires_in: da.expires_in, interval: da.interval, authorization_details: all });
    let interval = (da.interval ?? 5) * 1000;
    const until = Date.now() + Math.min(da.expires_in * 1000, this.args.wait * 1000 * 3);
    let polls = 0;
    for (;;) {
      expect(Date.now() < until, "the principal did not approve the grant in time");
      await sleep(interval);
      polls++;
      try {
        const tok = await this.nonceRetry(async () => {
          const resp = await oauth.deviceCodeGrantRequest(this.as, this.client, this.clientAuth, da.device_code,
            { DPoP: this.dpop, additionalParameters: { resource: this.endpoint }, ...this.opts });
          return oauth.processDeviceCodeResponse(this.as, this.client, resp);
        });
        expect(tok.token_type === "dpop", `token_type ${tok.token_type}`);
        this.token = tok.access_token;
        this.relationship = tok.relationship_id;
        emit("granted", { polls, token_type: tok.token_type, authorization_details: tok.authorization_details, relationship_id: tok.relationship_id ?? null });
        return;
      } catch (e) {
        if (e instanceof oauth.ResponseBodyError && e.error === "authorization_pending") continue;
        if (e instanceof oauth.ResponseBodyError && e.error === "slow_down") {
          interval += 5000;
          continue;
        }
        throw e;
      }
    }
  }

  // until polls GET /requests/{id} until its state is one of want.
  async until(id, want, fail = ["failed", "cancelled", "expired"]) {
    const end = Date.now() + this.args.wait * 1000;
    for (;;) {
      const r = await this.call("GET", `${this.endpoint}/requests/${id}`);
      expect(r.status === 200, `GET /requests/${id}: ${r.status} ${JSON.stringify(r.body)}`);
      if (want.includes(r.body.state)) return r.body;
      expect(!fail.includes(r.body.state), `request ${id} is ${r.body.state}: ${JSON.stringify(r.body.failure ?? null)}`);
      expect(Date.now() < end, `request ${id} stayed ${r.body.state}, want ${want}`);
      await sleep(100);
    }
  }

  // proof fetches a request's proof and verifies it with the issuer's
  // keys (jwks_uri): a compact JWS, typ vxp-proof+jwt; every terms_hash is
  // SHA-256 of the terms' JCS.
  async proof(view) {
    const r = await this.call("GET", view.proof_url);
    expect(r.status === 200 && r.type.startsWith("application/jose"), `proof: ${r.status} ${r.type}`);
    const jwksResp = await this.fetch(this.as.jwks_uri, { headers: { accept: "application/json" } });
    expect(jwksResp.status === 200, `jwks_uri: ${jwksResp.status}`);
    const jwks = await jwksResp.json();
    const { payload, protectedHeader } = await jose.jwtVerify(r.body.trim(), jose.createLocalJWKSet(jwks), { typ: "vxp-proof+jwt", issuer: this.as.issuer, algorithms: ["ES256"] });
    const reqOf = typeof payload.request === "string" ? payload.request : payload.request?.request_id ?? payload.request?.id;
    expect(reqOf === view.request_id, `the proof is of request ${JSON.stringify(payload.request)}, not ${view.request_id}`);
    for (const p of payload.proposals ?? []) {
      expect(p.terms_hash === sha256hex(jcs(p.terms)), `proposal ${p.id}: terms_hash is not SHA-256 of JCS(terms)`);
    }
    expect(payload.grant?.client_id === this.clientID, `the proof's grant is of ${payload.grant?.client_id}`);
    return { payload, kid: protectedHeader.kid };
  }

  async run() {
    const nid = this.args.negotiation;
    await this.discover();
    await this.identify();
    await this.tokenJWTBearer();
    await this.refusals();

    // A request without authority: 202, exactly what is missing.
    const body = { operation: "offer.respond", target: { negotiation_id: nid } };
    const key = randomUUID();
    let r = await this.request(undefined, body);
    expect(r.status === 400 && r.body?.error?.code === "idempotency_key_required", `no Idempotency-Key: ${r.status} ${JSON.stringify(r.body)}`);
    emit("idempotency_key_required", { status: r.status });
    r = await this.request(key, body);
    expect(r.status === 202 && r.body.state === "authorization_required", `first request: ${r.status} ${JSON.stringify(r.body)}`);
    const a = r.body.authorization;
    expect(a?.error === "authorization_required" && a.device_authorization_endpoint === this.as.device_authorization_endpoint && a.resource === this.endpoint, `authorization: ${JSON.stringify(a)}`);
    expect(a.authorization_details.length === 1 && a.authorization_details[0].type === RAR_CAPABILITY &&
      a.authorization_details[0].actions?.[0] === "offer.respond" && a.authorization_details[0].identifier === nid, `missing details: ${JSON.stringify(a.authorization_details)}`);
    const id = r.body.request_id;
    emit("authorization_required", { status: r.status, request_id: id, a2a: r.body.projections?.a2a, authorization_details: a.authorization_details });

    await this.deviceFlow(a.authorization_details);

    // The same key and body: the same request, re-evaluated.
    r = await this.request(key, body);
    expect((r.status === 200 || r.status === 201) && r.body.request_id === id && r.body.state === "proposed", `re-evaluated: ${r.status} ${JSON.stringify(r.body)}`);
    const rev1 = r.body.proposal;
    expect(rev1?.revision === 1 && rev1.terms?.action === "accept" && rev1.terms?.vxp_salt?.length >= 22, `revision 1: ${JSON.stringify(rev1)}`);
    emit("proposed", { status: r.status, request_id: id, proposal_id: rev1.id, revision: 1, action: rev1.terms.action, limits: rev1.limits, user_approval_required: rev1.user_approval_required, poppy: r.body.projections?.poppy, a2a: r.body.projections?.a2a });
    const other = await this.request(key, { ...body, parameters: { note: "another body" } });
    expect(other.status === 409 && other.body?.error?.code === "idempotency_key_reused", `another body: ${other.status} ${JSON.stringify(other.body)}`);
    emit("idempotency_key_reused", { status: other.status });

    // Counter revision 1: revision 2.
    const milestones = rev1.terms.milestones.map((m) => ({ amount: ((BigInt(m.amount) * 11n) / 10n).toString(), description: m.description }));
    r = await this.call("POST", `${this.endpoint}/proposals/${rev1.id}/counter`, { body: { milestones, reason: "the scope grew by a tenth" } });
    expect(r.status === 200 && r.body.proposal?.revision === 2 && r.body.proposal.terms?.action === "counter", `counter: ${r.status} ${JSON.stringify(r.body)}`);
    const rev2 = r.body.proposal;
    expect(rev2.terms.vxp_salt !== rev1.terms.vxp_salt, "revision 2 has revision 1's salt");
    emit("countered", { proposal_id: rev2.id, revision: 2, milestones, limits: rev2.limits });
    await pausePoint(this.args, "countered");

    // The stale accept: revision 1 was superseded by the counter.
    r = await this.call("POST", `${this.endpoint}/proposals/${rev1.id}/accept`, { body: { approved_by: "user" } });
    expect(r.status === 409 && r.body?.error?.code === "terms_changed", `stale accept: ${r.status} ${JSON.stringify(r.body)}`);
    emit("terms_changed", { status: r.status, proposal_id: rev1.id });
    await pausePoint(this.args, "terms_changed");

    // The current accept: the counter-offer is sent, and the request
    // succeeds once the counterparty holds it.
    r = await this.call("POST", `${this.endpoint}/proposals/${rev2.id}/accept`, { body: { approved_by: "user" } });
    expect(r.status === 200 || r.status === 202, `accept: ${r.status} ${JSON.stringify(r.body)}`);
    emit("accepted", { status: r.status, proposal_id: rev2.id, state: r.body.state });
    const again = await this.call("POST", `${this.endpoint}/proposals/${rev2.id}/accept`, { body: {} });
    expect(again.status === 409, `a second accept of the accepted revision: ${again.status} ${JSON.stringify(again.body)}`);
    emit("accepted_once", { status: again.status, code: again.body?.error?.code });
    let v = await this.until(id, ["succeeded"]);
    expect(v.effects.length >= 1 && v.effects.some((e) => e.cid), `effects: ${JSON.stringify(v.effects)}`);
    emit("succeeded", { request_id: id, effects: v.effects, a2a: v.projections?.a2a, poppy: v.projections?.poppy });
    const ev = await this.call("GET", `${this.endpoint}/requests/${id}/events`);
    const states = (ev.body.events ?? []).map((e) => e.state);
    expect(ev.status === 200 && states.includes("proposed") && states.at(-1) === "succeeded", `events: ${JSON.stringify(ev.body)}`);
    emit("events", { states });

    const p = await this.proof(v);
    const acc = p.payload.acceptance;
    expect(acc?.proposal_id === rev2.id && acc.revision === 2 && acc.approved_by_class === "agent_asserted", `acceptance: ${JSON.stringify(acc)}`);
    expect((p.payload.refused_acceptances ?? []).some((x) => x.proposal_id === rev1.id && x.code === "terms_changed"), `refused: ${JSON.stringify(p.payload.refused_acceptances)}`);
    const cids = (p.payload.effects ?? []).map((e) => e.cid);
    expect(cids.length >= 1 && v.effects.every((e) => !e.cid || cids.includes(e.cid)), `the proof's effects ${JSON.stringify(p.payload.effects)}`);
    emit("proof_verified", { request_id: id, kid: p.kid, acceptance: acc, refused_acceptances: p.payload.refused_acceptances, effects: p.payload.effects, ledger: p.payload.ledger });

    // A second request: accepting signs the settlement, a gated act.
    const key2 = randomUUID();
    r = await this.request(key2, body);
    expect(r.status === 201 && r.body.state === "proposed" && r.body.proposal?.terms?.action === "accept" && r.body.proposal.user_approval_required === true, `second request: ${r.status} ${JSON.stringify(r.body)}`);
    const id2 = r.body.request_id, prop = r.body.proposal;
    emit("proposed", { status: r.status, request_id: id2, proposal_id: prop.id, revision: prop.revision, action: "accept", user_approval_required: true });
    r = await this.call("POST", `${this.endpoint}/proposals/${prop.id}/accept`, { body: { approved_by: "user" } });
    expect(r.status === 202 || r.status === 200, `gated accept: ${r.status} ${JSON.stringify(r.body)}`);
    v = await this.until(id2, ["waiting_human", "succeeded"]);
    expect(v.state === "waiting_human", `the gated accept did not wait for the principal: ${v.state}`);
    emit("waiting_human", { request_id: id2, a2a: v.projections?.a2a, poppy: v.projections?.poppy });
    v = await this.until(id2, ["succeeded"]);
    emit("succeeded", { request_id: id2, effects: v.effects, a2a: v.projections?.a2a });
    const p2 = await this.proof(v);
    expect((p2.payload.approvals ?? []).length >= 1 && p2.payload.approvals.every((x) => /^[0-9a-f]{64}$/.test(x.intent_hash)), `approvals: ${JSON.stringify(p2.payload.approvals)}`);
    emit("proof_verified", { request_id: id2, kid: p2.kid, approvals: p2.payload.approvals, acceptance: p2.payload.acceptance, effects: p2.payload.effects });

    // Revocation: DELETE the relationship; the token is refused at once.
    expect(this.relationship, "the token answer named no relationship_id");
    r = await this.call("GET", `${this.endpoint}/relationships/${this.relationship}`);
    expect(r.status === 200 && r.body.active === true, `relationship: ${r.status} ${JSON.stringify(r.body)}`);
    r = await this.call("DELETE", `${this.endpoint}/relationships/${this.relationship}`);
    expect(r.status === 200, `DELETE relationship: ${r.status} ${JSON.stringify(r.body)}`);
    emit("relationship_deleted", { relationship_id: this.relationship });
    r = await this.call("GET", `${this.endpoint}/requests/${id}`);
    expect(r.status === 401, `after the revocation: ${r.status} ${JSON.stringify(r.body)}`);
    emit("revoked", { status: r.status, code: r.body?.error?.code, challenge: r.challenge === true });
  }
}

const args = (() => {
  try {
    return parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(e.message + "\n");
    process.exit(2);
  }
})();
const agent = new Agent(args);
try {
  await agent.run();
  emit("done");
  agent.server?.close();
  process.exit(0);
} catch (e) {
  const detail = e instanceof oauth.ResponseBodyError ? { status: e.status, oauth_error: e.error, description: e.error_description } : {};
  emit("failed", { at: current, error: e.message, ...detail });
  agent.server?.close();
  process.exit(1);
}
