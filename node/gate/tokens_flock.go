//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package gate

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) of path, creating it
// with mode 0600, and returns the function that releases it. Each call
// opens its own descriptor, so it also excludes other goroutines and
// processes.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
