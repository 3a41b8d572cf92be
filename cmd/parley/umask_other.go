//go:build !unix

package main

// privateFiles does nothing where there is no umask; the stores still
// make their files private at open and close.
func privateFiles() {}
