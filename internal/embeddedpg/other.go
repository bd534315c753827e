//go:build !unix

package embeddedpg

import (
	"errors"
	"os/exec"
)

// On systems without unix sockets and flock the embedded database is not
// offered: DATABASE_URL is needed.
var errUnsupported = errors.New("the embedded PostgreSQL needs Linux, macOS or a BSD: set DATABASE_URL to a PostgreSQL server")

const noFollow = 0

type account struct{ name string }

func accountFor() (*account, error)                     { return nil, errUnsupported }
func prepareDir(string, *account) error                 { return errUnsupported }
func (a *account) own(string) error                     { return nil }
func (a *account) apply(*exec.Cmd)                      {}
func (a *account) reaches(string) error                 { return nil }
func (a *account) hint(string) string                   { return "" }
func tryLock(string, *account) (bool, func(), error)    { return false, nil, errUnsupported }
func deniedBy(_, _ string, _ *account, err error) error { return err }
func alive(int) bool                                    { return false }
func isPostgres(int) bool                               { return false }
