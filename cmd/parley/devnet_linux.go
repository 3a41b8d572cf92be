package main

import (
	"os/exec"
	"syscall"
)

// stopWithParent makes the kernel send SIGTERM to a devnet node when the
// devnet process dies, even by SIGKILL, so no node outlives it.
func stopWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
