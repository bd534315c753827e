package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/membot/membot/internal/testing/testkit"
)

// The command line follows the usual conventions: usage when asked for it
// goes to stdout with success; an unknown command is an error (exit 2)
// with the usage on stderr. No settings are needed for either.
func TestCLIUsage(t *testing.T) {
	t.Parallel()
	noEnv := testkit.Lookup(nil)
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"}, {"migrate", "--help"},
		{"admin", "--help"}, {"admin", "help"}, {"doctor", "--help"}, {"doctor", "-h"}, {"admin", "stats", "--help"}, {"admin", "history", "-h"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"membot"}, args...), noEnv, &stdout, &stderr)
		if err != nil || !strings.Contains(stdout.String(), "usage:") || stderr.Len() != 0 {
			t.Errorf("membot %v: err %v, stdout %q, stderr %q; want usage on stdout and no error", args, err, stdout.String(), stderr.String())
		}
	}
	// Each admin command's --help lists its own flags, and only them.
	for sub, want := range map[string][]string{"stats": {"flags of membot admin stats: none"},
		"history": {"-user", "-limit"}, "export": {"-user"}, "forget": {"-user"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), []string{"membot", "admin", sub, "--help"}, noEnv, &stdout, &stderr); err != nil {
			t.Fatalf("admin %s --help: %v", sub, err)
		}
		flags := stdout.String()[strings.Index(stdout.String(), "flags of"):]
		for _, w := range want {
			if !strings.Contains(flags, w) {
				t.Errorf("admin %s --help lacks %q: %q", sub, w, flags)
			}
		}
		if sub != "history" && strings.Contains(flags, "-limit") || sub == "stats" && strings.Contains(flags, "-user") {
			t.Errorf("admin %s --help lists another command's flag: %q", sub, flags)
		}
	}
	for _, args := range [][]string{{"frobnicate"}, {"admin", "frobnicate"}, {"admin"}, {"doctor", "frobnicate"}, {"doctor", "-timeout", "0s"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"membot"}, args...), noEnv, &stdout, &stderr)
		var cfgErr *configError
		if !errors.As(err, &cfgErr) || !strings.Contains(stderr.String(), "usage:") || stdout.Len() != 0 {
			t.Errorf("membot %v: err %v, stdout %q, stderr %q; want a usage error (exit 2) with usage on stderr", args, err, stdout.String(), stderr.String())
		}
	}
}
