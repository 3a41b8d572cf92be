// The principal's pages: the WebAuthn calls and the refresh of the pending
// list. Served by the node; no other script runs on these pages.
(() => {
  'use strict';

  const $ = (id) => document.getElementById(id);

  function b64u(buf) {
    const bytes = new Uint8Array(buf);
    let s = '';
    for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function fromB64u(s) {
    const t = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
    const out = new Uint8Array(t.length);
    for (let i = 0; i < t.length; i++) out[i] = t.charCodeAt(i);
    return out.buffer;
  }

  // requestOptions and creationOptions turn the node's JSON options into
  // what navigator.credentials takes.
  function requestOptions(o) {
    if (window.PublicKeyCredential && PublicKeyCredential.parseRequestOptionsFromJSON) {
      return PublicKeyCredential.parseRequestOptionsFromJSON(o);
    }
    const p = Object.assign({}, o, { challenge: fromB64u(o.challenge) });
    if (o.allowCredentials) {
      p.allowCredentials = o.allowCredentials.map((c) => Object.assign({}, c, { id: fromB64u(c.id) }));
    }
    return p;
  }

  function creationOptions(o) {
    if (window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON) {
      return PublicKeyCredential.parseCreationOptionsFromJSON(o);
    }
    const p = Object.assign({}, o, {
      challenge: fromB64u(o.challenge),
      user: Object.assign({}, o.user, { id: fromB64u(o.user.id) }),
    });
    if (o.excludeCredentials) {
      p.excludeCredentials = o.excludeCredentials.map((c) => Object.assign({}, c, { id: fromB64u(c.id) }));
    }
    return p;
  }

  // credentialJSON is the credential as PublicKeyCredential.toJSON() gives it.
  function credentialJSON(c) {
    if (typeof c.toJSON === 'function') return c.toJSON();
    const r = c.response;
    const out = {
      id: c.id, rawId: b64u(c.rawId), type: c.type,
      clientExtensionResults: c.getClientExtensionResults ? c.getClientExtensionResults() : {},
      response: { clientDataJSON: b64u(r.clientDataJSON) },
    };
    if (c.authenticatorAttachment) out.authenticatorAttachment = c.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = b64u(r.attestationObject);
      if (r.getTransports) out.response.transports = r.getTransports();
    } else {
      out.response.authenticatorData = b64u(r.authenticatorData);
      out.response.signature = b64u(r.signature);
      if (r.userHandle) out.response.userHandle = b64u(r.userHandle);
    }
    return out;
  }

  // post sends body as JSON to the node and returns its JSON answer; a
  // refusal throws an Error carrying the node's code and answer.
  async function post(path, body) {
    const r = await fetch(path, {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body === undefined ? {} : body),
    });
    let data = null;
    try { data = await r.json(); } catch (_) { /* not JSON */ }
    if (!r.ok) {
      const e = new Error((data && data.message) || (r.status + ' ' + r.statusText));
      e.code = data && data.code;
      e.data = data;
      throw e;
    }
    return data;
  }

  function say(text, kind) {
    const s = $('status');
    if (!s) return;
    s.textContent = text;
    s.className = 'status ' + (kind || '');
  }

  function busy(on) {
    for (const b of document.querySelectorAll('button')) b.disabled = on;
  }

  function decided(text, kind) {
    say(text, kind);
    const a = $('actions');
    if (a) a.hidden = true;
    const d = document.body.dataset.next;
    if (d && d.startsWith('/') && !d.startsWith('//')) {
      setTimeout(() => { location.assign(d); }, 1500);
    }
  }

  // The approval page: approve with a passkey or deny with a reason.
  function approvalPage(id) {
    const base = '/api/approvals/' + encodeURIComponent(id);
    const approve = $('approve');
    approve.addEventListener('click', async () => {
      busy(true);
      say('Waiting for your passkey…');
      try {
        const opts = await post(base + '/options');
        const cred = await navigator.credentials.get({ publicKey: requestOptions(opts.publicKey) });
        if (!cred) throw new Error('no credential');
        const res = await post(base + '/finish', credentialJSON(cred));
        decided(res.message || 'Approved.', 'ok');
      } catch (e) {
        say('Not approved: ' + e.message, 'err');
      } finally {
        busy(false);
      }
    });
    $('deny-form').addEventListener('submit', async (ev) => {
      ev.preventDefault();
      busy(true);
      try {
        const res = await post(base + '/deny', { reason: $('reason').value });
        decided(res.message || 'Denied.', 'denied');
      } catch (e) {
        say('Not denied: ' + e.message, 'err');
      } finally {
        busy(false);
      }
    });
  }

  // The passkeys page: enrol the first passkey with the one-time token, or
  // a further one once an existing passkey approved its registration.
  function passkeysPage() {
    const form = $('register-form');
    const pendingKey = 'parley.registration';
    const resume = $('resume');

    async function ceremony(begin) {
      busy(true);
      say('Preparing the registration…');
      try {
        let opts;
        try {
          opts = await post('/api/passkeys/options', begin);
        } catch (e) {
          if (e.code === 'approval_pending' && e.data && e.data.requestId) {
            sessionStorage.setItem(pendingKey, JSON.stringify({ session: e.data.session, label: begin.label }));
            const a = $('pending-link');
            a.href = '/approvals/' + encodeURIComponent(e.data.requestId) + '?next=/passkeys';
            $('pending-note').hidden = false;
            say('An existing passkey must approve this registration first.', 'warn');
            return;
          }
          throw e;
        }
        say('Waiting for your authenticator…');
        const cred = await navigator.credentials.create({ publicKey: creationOptions(opts.options.publicKey) });
        if (!cred) throw new Error('no credential');
        await post('/api/passkeys/finish', { session: opts.session, credential: credentialJSON(cred) });
        sessionStorage.removeItem(pendingKey);
        say('Passkey registered.', 'ok');
        setTimeout(() => { location.reload(); }, 300);
      } catch (e) {
        say('Not registered: ' + e.message, 'err');
      } finally {
        busy(false);
      }
    }

    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const token = $('token');
      ceremony({ token: token ? token.value.trim() : '', label: $('label').value.trim() });
    });
    const saved = sessionStorage.getItem(pendingKey);
    if (saved && resume) {
      resume.hidden = false;
      $('resume-button').addEventListener('click', () => {
        const s = JSON.parse(saved);
        ceremony({ token: s.session || '', label: s.label || '' });
      });
    }
  }

  // The counterparties page: allow, deny or reset a counterparty.
  function consentPage() {
    async function set(address, state) {
      busy(true);
      try {
        const res = await post('/api/consent/' + encodeURIComponent(address), { state: state });
        say(res.message || 'Done.', 'ok');
        setTimeout(() => { location.reload(); }, 300);
      } catch (e) {
        say('Not changed: ' + e.message, 'err');
      } finally {
        busy(false);
      }
    }
    for (const b of document.querySelectorAll('button[data-consent]')) {
      b.addEventListener('click', () => set(b.closest('tr').dataset.address, b.dataset.consent));
    }
    for (const b of document.querySelectorAll('button[data-consent-set]')) {
      b.addEventListener('click', () => {
        const a = $('consent-address').value.trim();
        if (a) set(a, b.dataset.consentSet);
      });
    }
  }

  // The principal's own words: an answer typed on a question's page, or a
  // card pasted on the card page, becomes an approval request that holds
  // exactly that text (or the card's hash, the request showing every
  // clause); the browser goes to its approval page, where the passkey
  // signs it.
  function wordsForm(form, path, body) {
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      busy(true);
      say('Preparing the request…');
      try {
        const b = body();
        const res = await post(path, b);
        say(res.pending ? 'Read the request, then approve it with your passkey.' : 'Decided by the node at once.', 'ok');
        location.assign(res.next);
      } catch (e) {
        say('Not sent: ' + e.message, 'err');
      } finally {
        busy(false);
      }
    });
  }

  // The pending list refreshes itself from the node.
  function refreshList(el) {
    const url = el.dataset.refresh;
    const every = Number(el.dataset.every || 3000);
    const tick = async () => {
      try {
        const r = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
        const v = r.headers.get('X-Parley-Version');
        if (r.ok && v !== el.dataset.version) {
          el.innerHTML = await r.text();
          el.dataset.version = v;
        }
      } catch (_) { /* the node may be restarting */ }
      countdowns();
    };
    setInterval(tick, every);
  }

  // countdowns write the time left beside every <time data-expires>.
  function countdowns() {
    const now = Date.now();
    for (const t of document.querySelectorAll('time[data-expires]')) {
      const left = Math.round((Date.parse(t.dateTime) - now) / 1000);
      const out = t.nextElementSibling;
      if (!out || !out.classList.contains('left')) continue;
      if (left <= 0) {
        out.textContent = '(expired)';
      } else {
        const m = Math.floor(left / 60);
        out.textContent = '(in ' + (m > 0 ? m + ' min ' : '') + (left % 60) + ' s)';
      }
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    const act = $('act');
    if (act) approvalPage(act.dataset.request);
    if ($('register-form')) passkeysPage();
    if ($('consent-form')) consentPage();
    const esc = $('escalation');
    if (esc && $('answer-form')) {
      wordsForm($('answer-form'), '/api/escalations/' + encodeURIComponent(esc.dataset.negotiation) + '/answer',
        () => ({ answer: $('answer').value }));
    }
    for (const b of document.querySelectorAll('button.revoke')) {
      b.addEventListener('click', async () => {
        busy(true);
        say('Preparing the revocation…');
        try {
          const res = await post('/api/passkeys/' + encodeURIComponent(b.dataset.ref) + '/revoke');
          location.assign(res.next);
        } catch (e) {
          say('Not revoked: ' + e.message, 'err');
        } finally {
          busy(false);
        }
      });
    }
    // The agents page: revoking takes authority away, so no passkey.
    const revokeAgent = async (body) => {
      busy(true);
      try {
        const res = await post('/api/agents/revoke', body);
        say(res.message || 'Revoked.', 'ok');
        setTimeout(() => { location.reload(); }, 300);
      } catch (e) {
        say('Not revoked: ' + e.message, 'err');
      } finally {
        busy(false);
      }
    };
    for (const b of document.querySelectorAll('button[data-revoke-client]')) {
      b.addEventListener('click', () => revokeAgent({ clientId: b.dataset.revokeClient }));
    }
    for (const b of document.querySelectorAll('button[data-revoke-grant]')) {
      b.addEventListener('click', () => revokeAgent({ grantId: b.dataset.revokeGrant }));
    }
    if ($('card-form')) {
      wordsForm($('card-form'), '/api/card', () => {
        let card;
        try { card = JSON.parse($('card-json').value); } catch (e) { throw new Error('the card is not JSON: ' + e.message); }
        return { card: card };
      });
    }
    const list = document.querySelector('[data-refresh]');
    if (list) refreshList(list);
    countdowns();
    setInterval(countdowns, 1000);
  });
})();
