package storeguard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File modes of a store: readable by the node's user only.
const (
	FileMode fs.FileMode = 0o600
	DirMode  fs.FileMode = 0o700
)

// Private sets every file under dir to FileMode and every directory
// (dir included) to DirMode. Badger has no option for the modes of its
// files and creates tables, value logs and memtables with 0666 (0644 under
// the usual umask of 022); the parley binary sets a umask of 077 so that
// the files it creates are private from the start, and the stores call
// Private at open and close so that files made by other processes (older
// binaries, tests, tools) end up private too. A file that vanishes
// meanwhile (Badger deletes tables after a compaction) is skipped.
func Private(dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		want := FileMode
		if d.IsDir() {
			want = DirMode
		}
		if info.Mode().Perm() == want {
			return nil
		}
		if err := os.Chmod(path, want); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storeguard: private %s: %w", dir, err)
	}
	return nil
}
