// Command mcpfake is the test MCP server (internal/testing/mcpfake) as a
// program: over stdio by default, or over Streamable HTTP with -http ADDR,
// for trying membot's MCP_SERVERS by hand; -misbehave makes the HTTP
// server hostile (endless-line, huge-event, endless-events: see
// mcpfake.Misbehaviour).
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/membot/membot/internal/testing/mcpfake"
)

var misbehaviours = map[string]mcpfake.Misbehaviour{"": mcpfake.Behave, "endless-line": mcpfake.EndlessLine,
	"huge-event": mcpfake.HugeEvent, "endless-events": mcpfake.EndlessEvents}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at this address (e.g. 127.0.0.1:8931) rather than stdio")
	misbehave := flag.String("misbehave", "", "over HTTP: endless-line, huge-event or endless-events")
	flag.Parse()
	if *addr == "" {
		if err := mcpfake.ServeStdio(); err != nil {
			fmt.Fprintln(os.Stderr, "mcpfake:", err)
			os.Exit(1)
		}
		return
	}
	m, ok := misbehaviours[*misbehave]
	if !ok {
		log.Fatalf("mcpfake: -misbehave %q: not one of endless-line, huge-event, endless-events", *misbehave)
	}
	s := mcpfake.NewHTTP(mcpfake.Options{})
	s.Misbehave(m)
	// NewHTTP listens on a port of its own too; the address asked for serves the same.
	log.Printf("mcpfake: serving http://%s/mcp", *addr)
	go func() { log.Fatal(http.ListenAndServe(*addr, s.Handler())) }()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
	s.Close()
}
