package wait_test

import (
	"testing"
	"time"

	"github.com/membot/membot/internal/testing/wait"
)

func TestTimeoutGrowsWithThePatienceSetting(t *testing.T) {
	t.Setenv("MEMBOT_TEST_PATIENCE", "")
	one := wait.Timeout()
	t.Setenv("MEMBOT_TEST_PATIENCE", "3")
	if got := wait.Timeout(); got != 3*one {
		t.Fatalf("patience 3: %v, want %v", got, 3*one)
	}
	t.Setenv("MEMBOT_TEST_PATIENCE", "nonsense")
	if got := wait.Timeout(); got != one {
		t.Fatalf("a malformed patience: %v, want the base %v", got, one)
	}
}

func TestUntilReportsWhetherTheConditionHeld(t *testing.T) {
	n := 0
	if !wait.Until(time.Millisecond, func() bool { n++; return n == 3 }) {
		t.Fatal("a condition that holds on the third poll was reported as never holding")
	}
	t.Setenv("MEMBOT_TEST_PATIENCE", "0.0001")
	if wait.Until(time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds was reported as holding")
	}
}
