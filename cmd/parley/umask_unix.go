//go:build unix

package main

import "syscall"

// privateFiles sets the process umask to 077, so that every file and
// directory the binary creates is its user's only. Badger, which holds the
// ledger and the approval store, creates its tables, value logs and
// memtables with mode 0666 and has no option for it (0644 under the usual
// umask of 022); the stores also make their files 0600 at open and close
// (storeguard.Private), for files made by other processes. Nothing the
// binary writes is meant for other users of the machine: bundles to hand
// over are sent, or copied on purpose.
func privateFiles() { syscall.Umask(0o077) }
