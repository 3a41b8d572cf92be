package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// eventBuffer is how many events a slow stream may fall behind before the
// node drops events for it.
const eventBuffer = 1024

// events streams the node's events as server-sent events: per event an
// "id:" (a counter of this stream), "event: <kind>" and "data: <the
// node.Event as JSON>", and a comment line every heartbeat. With
// ?negotiation=<id> only that negotiation's events are sent. The stream
// ends when the client goes, the node closes or the server closes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	filter := r.URL.Query().Get("negotiation")
	if filter != "" {
		if _, err := negotiation.ParseNegotiationID(filter); err != nil {
			s.fail(w, r, badRequest("query: negotiation %q is not a lowercase UUID v4", filter))
			return
		}
	}
	ch, stop := s.n.Subscribe(eventBuffer)
	defer stop()
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives any write timeout
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := fmt.Fprint(w, ": parley events\n\n"); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(s.o.Heartbeat)
	defer tick.Stop()
	var seq uint64
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": heartbeat\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case e, ok := <-ch:
			if !ok {
				return // the node closed
			}
			if filter != "" && e.NegotiationID != filter {
				continue
			}
			if err := writeEvent(w, seq+1, e); err != nil || rc.Flush() != nil {
				return
			}
			seq++
		}
	}
}

// writeEvent writes one event in the text/event-stream format. The JSON
// of a node.Event holds no newline, so it is one data line.
func writeEvent(w http.ResponseWriter, id uint64, e node.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", id, e.Kind, b)
	return err
}
