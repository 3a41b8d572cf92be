# Parley — build, test and demo. Every target runs from a clean clone.
GO      ?= go
PKGS    ?= ./...
BIN     := bin/parley
export CGO_ENABLED ?= 1

.PHONY: all build test vet lint generate verify bench fuzz demo soak testbed testbed-scale simnet npm clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/parley

vet:
	$(GO) vet $(PKGS)

# npm packages used by the tests (AJV cross-check, ethers.js digest check,
# solc for contracts); pinned in package-lock.json, installed here.
npm: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

test: vet npm
	node schemas/ajv-check.mjs
	./scripts/install-chromium.sh
	./scripts/install-testbed.sh
	$(GO) test -race -shuffle=on -timeout 20m $(PKGS)

lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

generate: npm
	$(GO) generate $(PKGS)

verify: generate
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^contracts/bindings/'))" || (gofmt -l . ; echo "gofmt: files above need formatting"; exit 1)
	$(GO) mod tidy
	git diff --exit-code -- go.mod go.sum contracts schemas

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Not part of make test (which replays every committed corpus entry): each
# fuzz target of the module for FUZZTIME (36 targets, about 36 minutes at
# 60s). FUZZ=negotiation limits it to packages matching the pattern.
FUZZTIME ?= 60s
FUZZ ?= .
fuzz:
	FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh '$(FUZZ)'

# Not part of make test: Parley's task board beside go-waku's relay (v0.10.0,
# no RLN), N nodes of each system in one process on 127.0.0.1, the systems
# alternating over PEERS_ROUNDS rounds, then Parley's direct send beside
# go-waku's lightpush, and a CPU profile of Parley's side at the largest N
# (docs/benchmarks.md "Side by side with go-waku"; bench/README.md). bench/
# is a Go module of its own, and bench/waku another (go-waku's go-libp2p
# and pubsub fork), so go vet and go test ./... never enter them. About
# 10 minutes on 2 cores; more flags in PEERS_FLAGS (./bin/bench-peers -h).
PEERS_N ?= 10,30,100
PEERS_ROUNDS ?= 3
PEERS_FLAGS ?=
bench-peers:
	cd bench/waku && $(GO) build -tags gowaku_no_rln -o ../../bin/bench-peers-waku .
	cd bench && $(GO) build -o ../bin/bench-peers ./peers
	./bin/bench-peers -waku bin/bench-peers-waku -n $(PEERS_N) -rounds $(PEERS_ROUNDS) \
		-cpuprofile bin/bench-peers-parley.pprof -out bin/bench-peers.json $(PEERS_FLAGS)
	$(GO) tool pprof -top -nodecount=30 bin/bench-peers bin/bench-peers-parley.pprof 2>/dev/null | head -40

demo: build npm
	./$(BIN) demo

# Not part of make test: attacks a devnet for a few minutes while honest
# traffic goes on (docs/benchmarks.md, "Under attack").
SOAK_PHASE ?= 45s
soak: build
	./$(BIN) soak --phase $(SOAK_PHASE)

# Not part of make test (its short run is): real hosts in network
# namespaces, NAT routers, relays, store nodes, the demo story across them
# and the faults (root; docs/p2p.md "Running nodes across the internet",
# docs/benchmarks.md "The network testbed").
testbed: build
	./scripts/install-testbed.sh
	./$(BIN) testbed

# SCALE nodes on as many hosts: the task board's reach, memory, connections.
SCALE ?= 100
testbed-scale: build
	./scripts/install-testbed.sh
	./$(BIN) testbed --scale $(SCALE)

# Not part of make test: real Parley p2p Hosts in one process over
# go-libp2p's mocknet, 50 ms and 1 MiB/s per link; prints the task board's
# reach, gossipsub amplification, DHT lookups and store-node delivery
# (docs/benchmarks.md "Simulation: 1,000 nodes over mocknet"). 1,000 nodes
# take about 17 minutes and 12 GiB of heap on 2 cores: waves of 25 nodes
# 5 s apart, the heap watch at 17 GiB, the Go runtime's memory limit at
# 19 GiB. Scale with SIMNET_NODES, SIMNET_OFFLINE, SIMNET_LATENCY...
# (p2p/simnet_test.go); SIMNET_NODES=200 runs in about two minutes.
SIMNET_NODES ?= 1000
SIMNET_PAUSE ?= 5s
SIMNET_MAX_HEAP_MB ?= 17000
SIMNET_GOMEMLIMIT ?= 19GiB
simnet:
	SIMNET_NODES=$(SIMNET_NODES) SIMNET_PAUSE=$(SIMNET_PAUSE) SIMNET_MAX_HEAP_MB=$(SIMNET_MAX_HEAP_MB) GOMEMLIMIT=$(SIMNET_GOMEMLIMIT) \
		$(GO) test -tags simnet -run '^TestSimnet$$' -count=1 -timeout 60m -v ./p2p/

clean:
	rm -rf bin
