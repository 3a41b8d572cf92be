package node

import "github.com/parleynet/parley/node/engine"

// thread is one negotiation as this node holds it (engine.Thread).
type thread = engine.Thread
