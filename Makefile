# The two commands a newcomer needs are in README.md: `docker compose up -d`
# and `make test`.

.PHONY: test build vet fmt bench

test: ## run every test against a real PostgreSQL (found or started by scripts/test.sh)
	scripts/test.sh

build: ## the same static binary the Dockerfile builds
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o membot ./cmd/membot

vet:
	go vet ./...

fmt:
	gofmt -w .

bench: ## the load benchmark against the local PostgreSQL (see BENCHMARKS.md)
	go run ./cmd/membench
