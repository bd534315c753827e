package memory

import (
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	os.WriteFile("/tmp/turnrecall.sql", []byte(turnRecallSQL[0]), 0o644)
	os.WriteFile("/tmp/savenew.sql", []byte(saveNewUpdateSQL), 0o644)
}

func TestZZDump3(t *testing.T) {
	os.WriteFile("/tmp/claimfree.sql", []byte(claimFreeSQL), 0o644)
}
