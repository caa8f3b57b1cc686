# citeq — two commands on a fresh machine: `make run` and `make test`.
GO       ?= go
RAW      ?= $(or $(CITEQ_RAW),../shared/data/raw)
DATA     ?= var
ADDR     ?= 127.0.0.1:8080
BIN      ?= bin/citeq
STATICCHECK_VERSION := v0.8.2

.PHONY: build run ingest serve test lint bench bench-evidence load answers-dump fuzz soak misleading clean

# A first build downloads the modules (go names each one) and compiles about 690 packages: about two
# minutes on a quiet 2-core machine, four under load, so each package is named as it compiles
# (-v); a later build compiles only what changed, in seconds. The tag nomsgpack leaves out gin's
# MessagePack binding, which citeq never uses (a large package to compile).
TAGS     ?= nomsgpack
build:
	@echo "== citeq: building $(BIN) with $$($(GO) env GOVERSION); a first build downloads the Go modules and compiles about 690 packages (about two minutes on a quiet 2-core machine, four under load; each named as it goes), a later one takes seconds"
	$(GO) build -tags '$(TAGS)' -v -o $(BIN) ./cmd/citeq
	@echo "== citeq: built $(BIN)"

# Build, ingest the shared raw files into ./var, serve on 127.0.0.1:8080 with an operator key
# kept in ./var/operator.key (printed once; bin/citeq sends it by itself).
run: build
	@echo "== citeq: ingesting the agencies' files under $(RAW) into $(DATA)"
	$(BIN) ingest --raw $(RAW) --data $(DATA)
	@echo "== citeq: starting the server on $(ADDR)"
	$(BIN) serve --data $(DATA) --addr $(ADDR) --operator-key $(DATA)/operator.key

ingest: build
	$(BIN) ingest --raw $(RAW) --data $(DATA)

serve: build
	$(BIN) serve --data $(DATA) --addr $(ADDR) --operator-key $(DATA)/operator.key

test:
	$(GO) vet ./...
	CITEQ_RAW=$(abspath $(RAW)) CITEQ_REQUIRE_RAW=1 $(GO) test -count=1 -timeout 40m ./...
	CITEQ_RAW=$(abspath $(RAW)) mcp/tscheck/run.sh
	@tmp=$$(mktemp -d) && CITEQ_RAW=$(abspath $(RAW)) CITEQ_REQUIRE_RAW=1 CITEQ_OPENAPI_OUT=$$tmp/openapi.json $(GO) test -count=1 -run TestWriteOpenAPI ./api \
		&& scripts/openapi-lint.sh $$tmp/openapi.json; rc=$$?; rm -rf $$tmp; exit $$rc

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt wants to change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

bench: build
	CITEQ_RAW=$(abspath $(RAW)) GO=$(GO) $(GO) run ./bench/cmd/citeq-bench $(BENCHFLAGS)

# The aggregate evidence under load: 20 parallel median_price verifications over a 3M-row
# scale-up of power.price_ercot (peak RSS growth) and (other) citations with 30,000 excluded
# groups (bench/RESULTS.md, "Aggregate evidence under load"); BENCHFLAGS as for bench.
bench-evidence:
	CITEQ_RAW=$(abspath $(RAW)) $(GO) run ./bench/cmd/citeq-bench aggregate-evidence $(BENCHFLAGS)

# The service's answer to every served snapshot's total, records, each dimension and each pair
# of them, a top 3 with (other) and the comparisons with the other snapshots, the evidence of
# each answer's first citation, plus the capabilities and OpenAPI documents, the schemas and a
# digest of every snapshot file, one line each (SHA-256, bytes, status, question) in ANSWERS;
# DATA is ingested from RAW first when it serves nothing. AGAINST=<an earlier dump> also
# compares, names every answer that differs and fails on one: take a dump before changing the
# engine, loading, rendering or ingest, compare after (bench/README.md).
ANSWERS ?= bench/.cache/answers.txt
AGAINST ?=
answers-dump:
	CITEQ_RAW=$(abspath $(RAW)) $(GO) run ./bench/cmd/citeq-bench answers --data $(DATA) --out $(ANSWERS) $(if $(AGAINST),--against $(AGAINST))

# End-to-end load test with wrk against a running server on loopback.
load:
	CITEQ_RAW=$(abspath $(RAW)) bench/load.sh

# Fuzz every parser of outside input for FUZZTIME each (default 60s: 13 targets, about 14
# minutes). The seeds (f.Add and <package>/testdata/fuzz/<target>) run in every `make test`;
# with FUZZ_KEEP=1 what a run adds to the corpus is copied into <package>/testdata/fuzz/<target>
# (to be committed when worth keeping).
FUZZTIME ?= 60s
FUZZ_KEEP ?=
FUZZ_TARGETS := \
	./service:FuzzQueryJSON ./service:FuzzQueryPairs ./service:FuzzEvidenceJSON ./jsonw:FuzzRenderString \
	./api:FuzzSubscriptionBody ./webhooks:FuzzGuardControl ./mcp:FuzzToolArguments \
	./grid:FuzzParse ./grid/xls:FuzzRead ./grid/xls:FuzzWorkbookStream ./ingest/fetch:FuzzCheckFile \
	./ingest/fcc:FuzzParseNotice
fuzz:
	@cache=$$($(GO) env GOCACHE)/fuzz/$$($(GO) list -m); \
	for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$pkg $$name ($(FUZZTIME))"; \
		CITEQ_RAW=$(abspath $(RAW)) $(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
		src=$$cache/$${pkg#./}/$$name; dst=$$pkg/testdata/fuzz/$$name; \
		if [ -n "$(FUZZ_KEEP)" ] && [ -d $$src ]; then mkdir -p $$dst && cp -n $$src/* $$dst/ 2>/dev/null; echo "   corpus: $$(ls $$dst | wc -l) entries in $$dst"; fi; \
	done

# The ten questions of a new user's first hour whose answers could be misread, asked of a
# server started on $(DATA) (ingested first when empty), each answer's figures and notes printed.
misleading: build
	BIN=$(BIN) DATA=$(DATA) RAW=$(RAW) scripts/misleading.sh

# 10 minutes of mixed requests at a fixed rate, RSS and open files sampled each second.
soak:
	CITEQ_RAW=$(abspath $(RAW)) scripts/soak.sh

clean:
	rm -rf bin var
