# Build: a static binary (no cgo), time zones embedded in it (time/tzdata).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/membot ./cmd/membot

# Run: nothing but the binary, CA certificates and zoneinfo, as a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/membot /membot
USER nonroot:nonroot
ENTRYPOINT ["/membot"]
CMD ["run"]
