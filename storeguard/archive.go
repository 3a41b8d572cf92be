package storeguard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Archived is where Archive moved a store.
type Archived struct {
	// Dir is the store directory's new name ("" when there was none).
	Dir string `json:"dir,omitempty"`
	// RecordFile is the record file's new name ("" when there was none).
	RecordFile string `json:"recordFile,omitempty"`
}

// Archive moves the store directory dir and its record file aside under
// new names in the same directory (dir + ".reset-" + a UTC time stamp, and
// the record file with the same suffix), so that the store starts empty at
// its next open. It never deletes anything: the old store can be put back
// by renaming it. The store must be closed.
func Archive(dir, recordFile string, now time.Time) (Archived, error) {
	var a Archived
	suffix := ".reset-" + now.UTC().Format("20060102T150405Z")
	base := filepath.Clean(dir) + suffix
	target := base
	for i := 2; exists(target) || exists(recordFile+suffix+targetTail(target, base)); i++ {
		target = base + "-" + strconv.Itoa(i)
	}
	tail := targetTail(target, base)
	if exists(dir) {
		if err := os.Rename(dir, target); err != nil {
			return a, fmt.Errorf("storeguard: archive %s: %w", dir, err)
		}
		a.Dir = target
	}
	if recordFile != "" && exists(recordFile) {
		to := recordFile + suffix + tail
		if err := os.Rename(recordFile, to); err != nil {
			return a, fmt.Errorf("storeguard: archive %s: %w", recordFile, err)
		}
		a.RecordFile = to
	}
	return a, syncDir(filepath.Dir(filepath.Clean(dir)))
}

// targetTail is the "-N" a numbered target adds to base.
func targetTail(target, base string) string { return target[len(base):] }

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, os.ErrNotExist)
}
