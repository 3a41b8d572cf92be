package node

import "github.com/prometheus/client_golang/prometheus"

// metrics are the node's Prometheus metrics, registered with the
// registerer the node was given (never the global one).
type metrics struct {
	received  *prometheus.CounterVec // envelopes handled, by type and code
	sent      *prometheus.CounterVec // envelopes sent, by type
	facts     *prometheus.CounterVec // chain facts, by fact and code
	acts      *prometheus.CounterVec // acts, by act and result
	approvals *prometheus.CounterVec // approval decisions, by act and decision
	rejected  *prometheus.CounterVec // input rejected as not authentic, by code
	files     *prometheus.CounterVec // files fetched, by result
	delivered *prometheus.CounterVec // envelopes acked, by the path they took
	threads   prometheus.Gauge

	ledgerVerified prometheus.Gauge       // the last entry the full ledger check verified
	ledgerDamage   *prometheus.CounterVec // damaged ledger entries and objects found, by code
}

func newMetrics(reg prometheus.Registerer, peers func() float64) (*metrics, error) {
	m := &metrics{
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "envelopes_received_total",
			Help: "Envelopes received and judged, by type and code (ok, an effect code, or a rejection).",
		}, []string{"type", "code"}),
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "envelopes_sent_total",
			Help: "Envelopes this node built, stored and queued, by type.",
		}, []string{"type"}),
		facts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "chain_facts_total",
			Help: "Chain facts applied to threads, by fact and code.",
		}, []string{"fact", "code"}),
		acts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "acts_total",
			Help: "Acts requested through the node's API, by act and result code (ok or a refusal).",
		}, []string{"act", "result"}),
		approvals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "approvals_total",
			Help: "Approval requests decided, by gated act and decision (approved, denied, expired).",
		}, []string{"act", "decision"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "input_rejected_total",
			Help: "Input rejected as not authentic (by the transport or the node), by code; every rejection, as it happens.",
		}, []string{"code"}),
		files: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "files_fetched_total",
			Help: "Files fetched by CID (delivered files, evidence, proof bundles, announcements), by result.",
		}, []string{"result"}),
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "envelopes_delivered_total",
			Help: "Envelopes this node sent that were acked, by the path they took: direct, relayed (a circuit relay) or store (held by a store node).",
		}, []string{"path"}),
		threads: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "parley", Subsystem: "node", Name: "threads",
			Help: "Negotiation threads the node holds.",
		}),
		ledgerVerified: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "parley", Subsystem: "node", Name: "ledger_verified_seq",
			Help: "The last ledger entry the full verification after start has checked (every entry up to it verified).",
		}),
		ledgerDamage: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "parley", Subsystem: "node", Name: "ledger_damage_total",
			Help: "Damaged ledger entries and objects found (by the full verification or a read), by code; anything above 0 needs a restore.",
		}, []string{"code"}),
	}
	peerGauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "parley", Subsystem: "node", Name: "peers",
		Help: "Peers the node is connected to.",
	}, peers)
	for _, c := range []prometheus.Collector{m.received, m.sent, m.facts, m.acts, m.approvals, m.rejected, m.files, m.delivered, m.threads, peerGauge, m.ledgerVerified, m.ledgerDamage} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
