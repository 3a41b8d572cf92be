package workload

// Result is what one worker run measured. Times are in milliseconds, CPU
// in microseconds, memory in MiB.
type Result struct {
	System string `json:"system"`
	Mode   string `json:"mode"`
	Round  int    `json:"round"`
	N      int    `json:"n"`
	// WireBytes is the size of the messages as the worker built them
	// (it refuses to run when they are not Plan.MsgBytes).
	WireBytes int `json:"wireBytes"`
	// Notes are the system's own facts (versions, the envelope's size
	// inside the wire message, defaults) for the report.
	Notes map[string]string `json:"notes,omitempty"`

	StartMs float64 `json:"startMs"` // start every node and dial every edge
	// Connected peers per node once the network settled: p50 and max.
	PeersP50 int `json:"peersP50"`
	PeersMax int `json:"peersMax"`
	// HeapMiB is HeapInuse after a GC with every node running, idle;
	// BaseHeapMiB the same before the first node started.
	HeapMiB     float64 `json:"heapMiB"`
	BaseHeapMiB float64 `json:"baseHeapMiB"`
	// IdleCPU is the process's CPU time per second of wall time while the
	// network is idle (heartbeats, keep-alives), in core-seconds per second.
	IdleCPU float64 `json:"idleCPU"`
	// IdleWritten is the bytes written per second while idle.
	IdleWritten float64 `json:"idleWritten"`

	First    *Phase  `json:"first,omitempty"`
	Latency  *Phase  `json:"latency,omitempty"`
	Sweep    []Phase `json:"sweep,omitempty"`
	OverRate *Phase  `json:"overRate,omitempty"`
	Direct   *Direct `json:"direct,omitempty"`
	// Strays are deliveries the tracker could not place (unknown message)
	// and Dups second deliveries of a message to the same node's
	// application: both must be 0.
	Strays int64 `json:"strays"`
	Dups   int64 `json:"dups"`
}

// Phase is one stretch of publishing on the board and its deliveries.
type Phase struct {
	Target   float64 `json:"target"`   // messages per second asked for
	Achieved float64 `json:"achieved"` // messages per second published
	Messages int     `json:"messages"`
	// Expected deliveries are Messages x (N-1): every node but the
	// publisher. Lost ones had not arrived Drain after the last publish;
	// LostAtEnd is the same count at the end of the whole run (a late
	// delivery is not lost).
	Expected  int `json:"expected"`
	Delivered int `json:"delivered"`
	Lost      int `json:"lost"`
	LostAtEnd int `json:"lostAtEnd"`
	// PublishErrors are publishes the system refused to make.
	PublishErrors int `json:"publishErrors"`
	// Refused are the publishes the publisher's own rate would have
	// refused (Parley's ReserveAnnouncement); they were published anyway.
	Refused int `json:"refused,omitempty"`
	// Delivery latency (publish to one node's application) over every
	// delivery, and reach (publish to the last node's) over every message
	// that reached all nodes.
	DeliveryP50 float64 `json:"deliveryP50"`
	DeliveryP99 float64 `json:"deliveryP99"`
	ReachP50    float64 `json:"reachP50"`
	ReachP99    float64 `json:"reachP99"`
	ReachMax    float64 `json:"reachMax"`
	// CPU of the whole process over the phase, per message per node
	// (Messages x N), gross and less the idle baseline.
	CPUPerMsgNode    float64 `json:"cpuPerMsgNode"`
	NetCPUPerMsgNode float64 `json:"netCpuPerMsgNode"`
	WallMs           float64 `json:"wallMs"`
	// WrittenPerMsgNode is the bytes the process wrote over the phase
	// (Written), less the idle rate, per message per node: the copies of
	// each message a node sends, with their framing and the gossip.
	WrittenPerMsgNode float64 `json:"writtenPerMsgNode"`
	// Counters are the system's own counts during the phase (Parley:
	// input rejected on the board, by code).
	Counters map[string]int64 `json:"counters,omitempty"`

	start, end int // the phase's messages, [start, end)
}

// Direct is a point-to-point run: Sequential messages one at a time, then
// Concurrent messages from Senders goroutines.
type Direct struct {
	SeqP50   float64 `json:"seqP50"`
	SeqP99   float64 `json:"seqP99"`
	SeqCPU   float64 `json:"seqCpu"` // per message, both nodes
	Rate     float64 `json:"rate"`   // messages per second, concurrent
	RateCPU  float64 `json:"rateCpu"`
	Errors   int     `json:"errors"`   // sends that failed
	Received int     `json:"received"` // messages the receiving application got
	Sent     int     `json:"sent"`
	// Extra are the system's own findings (go-waku: what its default
	// lightpush rate limit did to back-to-back requests).
	Extra map[string]float64 `json:"extra,omitempty"`
}
