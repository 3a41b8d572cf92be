// Computes the expected hashing payload and intent hash of every request in
// intent_vectors.json with an implementation independent of the Go one:
// RFC 8785 canonical JSON is JSON.stringify with members sorted by UTF-16
// code units, and ECMAScript number formatting is JSON.stringify's own.
//
//   node approval/testdata/intent_vectors.mjs
//
// writes them to intent_vectors.expected.json.
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'

const input = new URL('./intent_vectors.json', import.meta.url)
const output = new URL('./intent_vectors.expected.json', import.meta.url)

function canonical(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']'
  const keys = Object.keys(v).sort()
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(v[k])).join(',') + '}'
}

function payloadOf(r) {
  const a = r.action
  const p = {
    v: 'dsh-human-intent/0.1',
    requestId: r.requestId,
    nonce: r.nonce,
    issuedAt: r.issuedAt,
    expiresAt: r.expiresAt,
    action: { tool: a.tool, arguments: a.arguments },
  }
  if (a.operation) p.action.operation = a.operation
  if (a.target) p.action.target = a.target
  if (r.agent?.id) p.agent = { id: r.agent.id }
  if (r.session?.id) p.session = { id: r.session.id }
  const c = {}
  if (r.context?.reason) c.reason = r.context.reason
  if (r.context?.risk) c.risk = r.context.risk
  if (Object.keys(c).length > 0) p.context = c
  return p
}

const out = JSON.parse(readFileSync(input, 'utf8')).map((v) => {
  const payload = canonical(payloadOf(v.request))
  return { name: v.name, payload, intentHash: createHash('sha256').update(payload, 'utf8').digest('hex') }
})
writeFileSync(output, JSON.stringify(out, null, 2) + '\n')
