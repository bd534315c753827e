# Build: a static binary (no cgo), time zones embedded in it (time/tzdata).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# What `membot version` prints (the build context has no .git to read it from):
# docker build --build-arg VERSION=$(git describe --tags --always) .
ARG VERSION=devel
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/membot ./cmd/membot

# Run: nothing but the binary, CA certificates and zoneinfo, as a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/membot /membot
USER nonroot:nonroot
ENTRYPOINT ["/membot"]
CMD ["run"]
