// Package wait is the one patience of every test that waits for something
// to happen: Timeout is how long a test waits before it calls a wait
// failed. Machines that run the tests are shared and slow down without
// warning, so the patience is generous, doubles under the race detector
// and grows with MEMBOT_TEST_PATIENCE (a factor: 3 waits three times as
// long). A test never waits a bare fixed time.
package wait

import (
	"os"
	"strconv"
	"time"
)

// base is the patience on an ordinary machine without the race detector.
const base = 20 * time.Second

// Timeout is how long a test waits for something before it fails.
func Timeout() time.Duration {
	d := base
	if raceEnabled {
		d *= 2
	}
	if f, err := strconv.ParseFloat(os.Getenv("MEMBOT_TEST_PATIENCE"), 64); err == nil && f > 0 {
		d = time.Duration(float64(d) * f)
	}
	return d
}

// Until polls cond every step until it holds, and reports whether it did
// within Timeout.
func Until(step time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(Timeout()); ; time.Sleep(step) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
