//go:build race

package wait

const raceEnabled = true
