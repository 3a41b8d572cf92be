// An MCP client nobody in this project wrote (@modelcontextprotocol/sdk,
// pinned in package.json) drives two Parley nodes' MCP endpoints over
// Streamable HTTP: it lists the tools, then plays a negotiation between
// Alice's agent (node A) and Bob's agent (node B) through an escalation,
// Alice's answer and the brief. It prints what it saw as one JSON object
// on stdout for TestNpmClient to check; any failure exits non-zero.
//
// Environment: PARLEY_A_URL, PARLEY_A_KEY, PARLEY_B_URL, PARLEY_B_KEY (each
// node's MCP endpoint and agent key), PARLEY_B_ADDRESS (node B's EVM
// address).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

function env(k) {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
}

// connect opens a session with the agent key, or with a seat link alone
// (the Parley-Seat header), or with neither (which the node refuses).
async function connect(url, key, name, seat) {
  const headers = key ? { Authorization: `Bearer ${key}` } : {};
  if (seat) headers['Parley-Seat'] = seat;
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

function textOf(res) {
  return (res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

// call calls a tool and returns its structured answer; a tool error throws.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name}: tool error: ${textOf(res)}`);
  return res.structuredContent ?? JSON.parse(textOf(res));
}

// refusal calls a tool that must fail and returns the error's text.
async function refusal(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  if (!res.isError) throw new Error(`${name}: succeeded, a refusal was expected: ${textOf(res)}`);
  return textOf(res);
}

// waitFor calls wait_for_turn until cond holds for the room.
async function waitFor(client, link, cond, what) {
  const end = Date.now() + 90_000;
  for (;;) {
    const room = await call(client, 'wait_for_turn', { link, timeout_seconds: 5 });
    if (cond(room)) return room;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(room)}`);
    if (!room.timed_out) await new Promise((r) => setTimeout(r, 50));
  }
}

const aliceCard = {
  principal: { name: 'Alice', role: 'buyer' },
  goal: 'Get the user guide translated.',
  must_never: [{ text: 'pay more than 0.55 ETH in total', rule: 'total > eth("0.55")' }],
  known_facts: [{ text: 'The guide has 40 pages', key: 'page_count', value: 40 }],
};
const bobCard = {
  principal: { name: 'Bob', role: 'translator' },
  goal: 'Win translation work.',
  must_haves: [{ text: 'at least 0.3 ETH', rule: 'total >= eth("0.3")' }],
};

const out = {};
const a = await connect(env('PARLEY_A_URL'), env('PARLEY_A_KEY'), 'npm-agent-a');
const b = await connect(env('PARLEY_B_URL'), env('PARLEY_B_KEY'), 'npm-agent-b');
// Without the key or a seat link no session opens.
try {
  await connect(env('PARLEY_A_URL'), '', 'npm-agent-anonymous');
  out.anonSession = 'opened';
} catch (err) {
  out.anonSession = `${err && err.code !== undefined ? err.code : ''} ${err && err.message ? err.message : err}`;
}

// The tools, their annotations and arguments.
const { tools } = await a.listTools();
out.tools = tools.map((t) => t.name).sort();
out.readOnly = tools.filter((t) => t.annotations && t.annotations.readOnlyHint).map((t) => t.name).sort();
out.arguments = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties || {}).sort()]));

// Alice's agent opens the room, seals her card and proposes 0.5 ETH.
const made = await call(a, 'create_room', {
  topic: 'Translate the user guide', your_principal: 'Alice', counterpart: env('PARLEY_B_ADDRESS'), counterpart_proxy: 'external',
});
out.roomId = made.room_id;
const aLink = made.your_link;

// A session opened with Alice's seat link alone drives her seat, and a
// tool that needs the key is refused with the sign-in sentence.
const seatOnly = await connect(env('PARLEY_A_URL'), '', 'npm-agent-seat', aLink);
out.signInRefusal = await refusal(seatOnly, 'create_room', { topic: 'x', your_principal: 'Alice', counterpart: env('PARLEY_B_ADDRESS') });
out.seatRoom = (await call(seatOnly, 'get_room', { link: aLink })).room_id;
await call(a, 'join_room', { link: aLink, agent_name: 'npm agent A' });
await call(a, 'seal_intent_card', { link: aLink, card: aliceCard });
const deadline = new Date(Date.now() + 72 * 3600 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
await call(a, 'send_envelope', {
  link: aLink, status: 'continue', message: 'Translate the 40-page guide for 0.5 ETH.',
  claims: [{ text: 'page_count = 40', origin: 'stated', ref: 'known_facts[0]' }],
  proposal: {
    terms: ['title = Translate the user guide', 'milestone = 0.3 ETH: chapter 1', 'milestone = 0.2 ETH: chapter 2', `deadline = ${deadline}`],
    depends_on: ['new1'],
  },
});

// Bob's agent takes his seat on his node from the invite, seals his card,
// reviews Alice's claim and counters at 0.6 ETH.
let bJoin;
for (const end = Date.now() + 60_000; ;) {
  const res = await b.callTool({ name: 'join_room', arguments: { link: made.invite_link_for_counterpart, agent_name: 'npm agent B' } });
  if (!res.isError) { bJoin = res.structuredContent; break; }
  if (Date.now() > end || !textOf(res).includes('unknown_negotiation')) throw new Error(`join_room: ${textOf(res)}`);
  await new Promise((r) => setTimeout(r, 50)); // the proposal is on its way to node B
}
const bLink = bJoin.your_link;
await call(b, 'seal_intent_card', { link: bLink, card: bobCard });
const bTurn = await waitFor(b, bLink, (r) => r.your_turn, "bob's turn");
out.bobReviews = bTurn.claims_to_review.map((c) => c.id);
await call(b, 'send_envelope', {
  link: bLink, status: 'continue', message: 'The glossary is technical: 0.6 ETH.',
  reviews: bTurn.claims_to_review.map((c) => ({ claim_id: c.id, verdict: 'accept' })),
  proposal: { terms: { milestones: [{ amount: '0.35 ETH', description: 'chapter 1' }, { amount: '0.25 ETH', description: 'chapter 2' }] } },
});

// Alice's agent agrees; her node escalates (0.6 ETH crosses must_never).
await waitFor(a, aLink, (r) => r.your_turn && r.current_offer && r.current_offer.terms.total === '0.6 ETH', 'the counter at alice');
out.escalationRefusal = await refusal(a, 'send_envelope', { link: aLink, status: 'agree', message: 'Agreed.' });
const paused = await call(a, 'get_room', { link: aLink });
out.statusPaused = paused.status;
out.question = paused.pending_question;

// Alice answers; her agent relays it; once confirmed, it agrees.
const answered = await call(a, 'answer_escalation', { link: aLink, answer: 'Yes, up to 0.6 ETH for this task.' });
out.answerVia = answered.answers[0].via;
for (const end = Date.now() + 60_000; !(await call(a, 'get_room', { link: aLink })).answers[0].confirmed;) {
  if (Date.now() > end) throw new Error('the answer was never confirmed');
  await new Promise((r) => setTimeout(r, 50));
}
await call(a, 'send_envelope', { link: aLink, status: 'agree', message: 'Agreed at 0.6 ETH.' });

// Bob agrees to his own offer: both acceptances make the agreement.
await waitFor(b, bLink, (r) => r.your_turn, "bob's turn to agree");
await call(b, 'send_envelope', { link: bLink, status: 'agree', message: 'Deal.' });
out.statusA = (await waitFor(a, aLink, (r) => r.status === 'agreed', 'the agreement at alice')).status;
out.statusB = (await waitFor(b, bLink, (r) => r.status === 'agreed', 'the agreement at bob')).status;

// The brief.
const brief = await call(a, 'get_brief', { link: aLink });
out.briefStatus = brief.status;
out.briefMarkdown = brief.markdown;
out.briefEscalations = brief.brief.escalations.map((e) => ({ answer: e.answer, via: e.via }));

await Promise.all([a.close(), b.close(), seatOnly.close()]);
process.stdout.write(JSON.stringify(out) + '\n');
