package bot_test

import (
	"os"
	"testing"

	"github.com/membot/membot/internal/filetext"
	"github.com/membot/membot/internal/testing/mcpfake"
	"github.com/membot/membot/internal/testing/openaifake"
	"github.com/membot/membot/internal/testing/testkit"
)

// harness is the real bot against the fakes (internal/testing/testkit).
type harness = testkit.Harness

var ivan, jane = testkit.Ivan, testkit.Jane

func newHarness(t *testing.T) *harness { return testkit.New(t) }

// TestMain fails the package when any request a model fake received broke
// the role invariant strict servers hold membot to (openaifake.CheckRoles);
// started as the parser of a PDF the bot under test reads, it is that, and
// started as the tests' stdio MCP server, it is that (mcpfake.ServeIfAsked).
// The tests mostly wait, so more of them run side by side than go test's
// default (testkit.RaiseParallel).
func TestMain(m *testing.M) {
	filetext.RunIfChild()
	mcpfake.ServeIfAsked()
	testkit.RaiseParallel()
	os.Exit(openaifake.Main(m))
}
