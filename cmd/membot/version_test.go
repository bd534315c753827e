package main

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/testkit"
)

// `membot version` needs no settings and names the version and toolchain.
func TestVersionNeedsNoSettings(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	if err := run(context.Background(), []string{"membot", "version"}, testkit.Lookup(map[string]string{"ENV_FILE": "/dev/null"}), &out, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "membot ") || !strings.Contains(got, runtime.Version()) {
		t.Fatalf("membot version printed %q", got)
	}
}
