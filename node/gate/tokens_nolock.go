//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package gate

import (
	"errors"
	"os"
	"time"
)

// lockFile takes an exclusive lock of path where flock is not available:
// the file is created exclusively and removed on release; a holder that
// died leaves it, and after 30 s of waiting it is taken as stale.
func lockFile(path string) (func(), error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return func() { _ = os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			_ = os.Remove(path)
			deadline = time.Now().Add(30 * time.Second)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
