package negotiation

import (
	"time"
)

// Input is what a thread consumes: an *Envelope or a chain fact.
type Input interface{ input() }

func (*Envelope) input() {}

// Apply judges one input at time now and returns the outcome. Non-authentic
// input leaves the thread exactly as it was. An authentic envelope whose
// effect is refused changes only its sender's chain position and the record
// of the refusal. Apply reads no clock: now is the receiver's clock, used
// only to refuse timestamps from its future.
func (t *Thread) Apply(in Input, now time.Time) Outcome {
	switch v := in.(type) {
	case *Envelope:
		return t.applyEnvelope(v, now)
	case Fact:
		return t.applyFact(v)
	}
	return Outcome{Code: CodeSchemaInvalid, Err: reject(CodeSchemaInvalid, "", "unknown input %T", in), From: t.state, To: t.state}
}

func refuse(from State, err *Error) Outcome {
	return Outcome{Code: err.Code, Err: err, From: from, To: from}
}

func (t *Thread) applyEnvelope(e *Envelope, now time.Time) Outcome {
	from := t.state
	if e == nil {
		return refuse(from, reject(CodeSchemaInvalid, "", "nil envelope"))
	}
	if e.NegotiationID != t.p.NegotiationID {
		return refuse(from, reject(CodeWrongNegotiation, "/negotiationId", "envelope of %s in thread %s", e.NegotiationID, t.p.NegotiationID))
	}
	if err := e.Verify(); err != nil {
		return refuse(from, err.(*Error))
	}
	if e.Timestamp.After(now.Add(MaxClockSkew)) {
		return refuse(from, reject(CodeClockSkew, "/timestamp", "%s is more than %s ahead of %s", FormatTime(e.Timestamp), MaxClockSkew, FormatTime(now)))
	}
	sender := e.Sender.EVMAddress
	if t.p.Self != (Address{}) && sender != t.p.Self && !e.Addressed(t.p.Self) {
		return refuse(from, reject(CodeNotAddressed, "/recipients", "does not name %s", t.p.Self))
	}
	if e.IsAnnouncement() {
		return refuse(from, reject(CodeNotAddressed, "/recipients", "an announcement opens no negotiation by itself"))
	}
	c := t.chains[sender]
	var seq uint64
	var head Hash
	if c != nil {
		seq, head = c.seq, c.head
	}
	if e.Sequence <= seq {
		if c.seen[e.Sequence] == e.Hash() {
			return Outcome{Code: CodeDuplicate, Authentic: true, From: from, To: from}
		}
		o := refuse(from, reject(CodeEquivocation, "/sequence", "%s signed two envelopes at sequence %d", sender, e.Sequence))
		o.Equivocation = &Equivocation{Sender: sender, Sequence: e.Sequence, First: c.seen[e.Sequence], Second: e}
		return o
	}
	if e.Sequence > seq+1 {
		return refuse(from, reject(CodeSequenceGap, "/sequence", "expected %d, got %d", seq+1, e.Sequence))
	}
	if e.PreviousHash != head {
		return refuse(from, reject(CodePreviousHashMismatch, "/previousHash", "expected %s", head))
	}
	if c != nil {
		if e.Sender.XMTPPublicKey != c.key {
			return refuse(from, reject(CodeKeyMismatch, "/sender/xmtpPublicKey", "%s signed earlier envelopes with another inbox key", sender))
		}
		if e.Timestamp.Before(c.last) {
			return refuse(from, reject(CodeTimestampRegression, "/timestamp", "earlier than the sender's previous envelope"))
		}
	}
	if err := t.resolveRefs(e); err != nil {
		return refuse(from, err)
	}

	// The envelope is authentic: judge its effect without changing anything.
	commit, err := t.judge(e)

	// Advance the sender's chain and record the envelope, effective or not.
	if c == nil {
		c = &senderChain{key: e.Sender.XMTPPublicKey, seen: map[uint64]Hash{}}
		t.chains[sender] = c
	}
	c.seq, c.head, c.last = e.Sequence, e.Hash(), e.Timestamp
	c.seen[e.Sequence] = e.Hash()
	t.byHash[e.Hash()] = e

	out := Outcome{Authentic: true, From: from}
	if err != nil {
		out.Code, out.Err = err.Code, err
	} else {
		commit(&out)
	}
	out.To = t.state
	t.log = append(t.log, Record{Hash: e.Hash(), Type: e.Type, Sender: sender, Seq: e.Sequence, Code: out.Code, State: t.state})
	return out
}

// refs returns the envelope hashes e names, with the field naming each.
func refs(e *Envelope) map[string]Hash {
	r := map[string]Hash{}
	switch p := e.Payload.(type) {
	case *TaskCounterOffer:
		r["inReplyTo"] = p.InReplyTo
	case *TaskAcceptance:
		r["acceptedOfferHash"] = p.AcceptedOfferHash
		if p.InReplyTo != nil {
			r["inReplyTo"] = *p.InReplyTo
		}
	case *AcceptDelivery:
		r["deliveryHash"] = p.DeliveryHash
	case *RevisionRequest:
		if p.InReplyTo != nil {
			r["inReplyTo"] = *p.InReplyTo
		}
	case *DisputeEvidence:
		if p.InReplyTo != nil {
			r["inReplyTo"] = *p.InReplyTo
		}
	case *MilestoneDefinition:
		if p.InReplyTo != nil {
			r["inReplyTo"] = *p.InReplyTo
		}
	}
	return r
}

// resolveRefs refuses, for a later retry, an envelope that names one this
// thread has not seen yet: causal order is restored by holding it.
func (t *Thread) resolveRefs(e *Envelope) *Error {
	for field, h := range refs(e) {
		if _, ok := t.byHash[h]; !ok {
			return reject(CodeMissingReference, "/payload/"+field, "%s is not in this thread (yet)", h)
		}
	}
	return nil
}

// commitFn applies an effect already judged legal.
type commitFn func(*Outcome)
