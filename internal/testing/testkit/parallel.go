package testkit

import (
	"flag"
	"runtime"
	"strconv"
)

// WaitersPerCPU is how many end-to-end tests run side by side per CPU.
const WaitersPerCPU = 4

// RaiseParallel, called by a TestMain before m.Run, lets WaitersPerCPU
// tests per CPU run side by side instead of go test's one (-parallel
// defaults to GOMAXPROCS, which suits tests that compute). An end-to-end
// test mostly waits, on the database, the fakes and the bot's timers: two
// at a time on two cores leave the CPU idle most of the run. A -parallel
// given on the command line wins.
func RaiseParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(WaitersPerCPU*runtime.GOMAXPROCS(0)))
	}
}
