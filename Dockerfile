# The clone's git history, for the version membot version prints:
# docker-compose.yml passes .git as the build context named "git", which
# takes this empty stage's place; a plain docker build has none.
FROM scratch AS git

# Build: a static binary (no cgo), time zones embedded in it (time/tzdata).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# What `membot version` prints: VERSION when given
# (docker build --build-arg VERSION=$(git describe --tags --always) .), else
# git describe of the "git" context (docker compose), else devel.
ARG VERSION=
RUN --mount=type=bind,from=git,target=/git \
	v="${VERSION:-$(git -c safe.directory='*' --git-dir=/git describe --tags --always 2>/dev/null || echo devel)}" && \
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=$v" -o /out/membot ./cmd/membot

# Run: nothing but the binary, CA certificates and zoneinfo, as a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/membot /membot
USER nonroot:nonroot
ENTRYPOINT ["/membot"]
CMD ["run"]
