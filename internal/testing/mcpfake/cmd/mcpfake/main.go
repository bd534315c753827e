// Command mcpfake is the test MCP server (internal/testing/mcpfake) as a
// program: over stdio by default, or over Streamable HTTP with -http ADDR,
// for trying membot's MCP_SERVERS by hand.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/membot/membot/internal/testing/mcpfake"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at this address (e.g. 127.0.0.1:8931) rather than stdio")
	flag.Parse()
	if *addr == "" {
		if err := mcpfake.ServeStdio(); err != nil {
			fmt.Fprintln(os.Stderr, "mcpfake:", err)
			os.Exit(1)
		}
		return
	}
	s := mcpfake.New(mcpfake.Options{})
	log.Printf("mcpfake: serving http://%s/mcp", *addr)
	log.Fatal(http.ListenAndServe(*addr, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
}
