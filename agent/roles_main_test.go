package agent_test

import (
	"os"
	"testing"

	"github.com/membot/membot/internal/testing/openaifake"
)

// TestMain fails the package when any request a model fake received broke
// the role invariant strict servers hold membot to (openaifake.CheckRoles).
func TestMain(m *testing.M) { os.Exit(openaifake.Main(m)) }
