//go:build !linux

package main

import "os/exec"

// stopWithParent does nothing where the kernel cannot signal a child when
// its parent dies; the devnet stops its nodes itself on Ctrl-C.
func stopWithParent(*exec.Cmd) {}
