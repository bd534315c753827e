package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time by the Makefile and the Dockerfile
// (-ldflags "-X main.version=v1.2.3"); otherwise it comes from the build
// information Go records (the module version of `go install ...@v1.2.3`,
// or the commit of a build from a clone).
var version = ""

// versionLine is what `membot version` prints: the version, the commit and
// its date when known, and the Go toolchain.
func versionLine() string {
	v, commit, when, dirty := version, "", "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	line := "membot " + v
	if commit != "" {
		line += " (commit " + commit[:min(12, len(commit))]
		if dirty {
			line += "+changes"
		}
		if when != "" {
			line += ", " + when
		}
		line += ")"
	}
	return fmt.Sprintf("%s %s %s/%s", line, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
