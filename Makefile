# The two commands a newcomer needs are in README.md: `docker compose up -d`
# and `make test`.

.PHONY: test build vet fmt bench

# The version membot version prints: the nearest tag and the commit.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

test: ## run every test against a real PostgreSQL (found or started by scripts/test.sh)
	scripts/test.sh

build: ## the same static binary the Dockerfile builds
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=$(VERSION)" -o membot ./cmd/membot

vet:
	go vet ./...

fmt:
	gofmt -w .

bench: ## the load benchmark against the local PostgreSQL (see BENCHMARKS.md)
	go run ./cmd/membench
