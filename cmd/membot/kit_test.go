package main

import (
	"context"
	"os"
	"testing"

	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/internal/testing/mcpfake"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/testkit"
)

// harness is the real bot against the fakes (internal/testing/testkit).
type harness = testkit.Harness

type syncBuffer = testkit.SyncBuffer

const testToken = testkit.Token

var ivan, jane = testkit.Ivan, testkit.Jane

func newHarness(t *testing.T) *harness { return testkit.New(t) }

// runAdmin runs `membot admin args...` with the harness's settings and
// returns what it printed.
func runAdmin(h *harness, args ...string) (string, error) {
	var out syncBuffer
	err := run(context.Background(), append([]string{"membot", "admin"}, args...), testkit.Lookup(h.Env), &out, &out)
	return out.String(), err
}

// TestMain fails the package when any request a model fake received broke
// the role invariant strict servers hold membot to (openaifake.CheckRoles);
// started as the parser of a PDF the bot under test reads, it is that.
// Unlike bot's, these tests keep go test's -parallel: the kill -9 tests
// judge what a kill explains by when it came, which a crowded machine blurs.
func TestMain(m *testing.M) {
	filetext.RunIfChild()
	mcpfake.ServeIfAsked() // started as a stdio MCP server of a test, it is that
	os.Exit(openaifake.Main(m))
}
