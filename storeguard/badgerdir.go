package storeguard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// manifestName is Badger's MANIFEST file.
const manifestName = badger.ManifestFilename

// Contents is what CheckBadgerDir found in a Badger directory.
type Contents struct {
	// Exists reports whether the directory exists.
	Exists bool
	// Tables, ValueLogs and Memtables count the table (.sst), value-log
	// (.vlog) and memtable write-ahead (.mem) files, empty ones aside.
	Tables, ValueLogs, Memtables int
	// Manifest reports whether a MANIFEST is present; ManifestTables is the
	// number of tables it names.
	Manifest       bool
	ManifestTables int
	// Orphans are table files the MANIFEST does not name: what a crash
	// between writing tables and recording them in the MANIFEST (a flush,
	// a compaction) leaves. Badger deletes them at open; their data is in
	// the tables the MANIFEST names or in the memtable files.
	Orphans []string
	// Empty are value-log and memtable files of 0 bytes: what a kill
	// between Badger creating such a file and giving it its size leaves.
	// They hold nothing, and Badger v4 cannot open a directory with one
	// (dgraph-io/badger#2207): DropEmpty removes them before the open.
	Empty []string
}

// HasData reports whether the directory holds any table, value-log or
// memtable file: anything Badger could have written data into.
func (c Contents) HasData() bool { return c.Tables+c.ValueLogs+c.Memtables > 0 }

// String describes the contents for people.
func (c Contents) String() string {
	if !c.Exists {
		return "no directory"
	}
	m := "no MANIFEST"
	if c.Manifest {
		m = fmt.Sprintf("a MANIFEST naming %d tables", c.ManifestTables)
	}
	return fmt.Sprintf("%d table, %d value-log and %d memtable files and %s", c.Tables, c.ValueLogs, c.Memtables, m)
}

// CheckBadgerDir looks at the Badger directory dir of store before it is
// opened, so that Badger never starts an empty database over data it
// cannot see (Badger creates a new MANIFEST when there is none and then
// deletes every table file it does not name). It refuses with an *Error:
//
//   - CodeNoManifest: table, value-log or memtable files and no MANIFEST;
//   - CodeBadManifest: a MANIFEST that cannot be read or replayed, that
//     names a table whose file is missing, or that names no table while
//     table files are present.
//
// Table files that a readable MANIFEST does not name, beside tables it
// does name, are what a crash between writing tables and recording them
// leaves; Badger deletes them at open, as its crash recovery, and they are
// listed in Contents.Orphans. (A MANIFEST replaced by an older copy names
// tables that compactions have deleted since, and is refused.) A
// directory that does not exist, or holds no data file, is a new store.
func CheckBadgerDir(store, dir string) (Contents, error) {
	var c Contents
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("storeguard: read %s: %w", dir, err)
	}
	c.Exists = true
	tables := map[uint64]string{}
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == manifestName:
			c.Manifest = true
		case strings.HasSuffix(name, ".sst"):
			c.Tables++
			if id, err := strconv.ParseUint(strings.TrimSuffix(name, ".sst"), 10, 64); err == nil {
				tables[id] = name
			}
		case strings.HasSuffix(name, ".vlog"), strings.HasSuffix(name, ".mem"):
			info, err := e.Info()
			if err != nil {
				return c, fmt.Errorf("storeguard: read %s: %w", dir, err)
			}
			switch {
			case info.Size() == 0:
				c.Empty = append(c.Empty, name)
			case strings.HasSuffix(name, ".vlog"):
				c.ValueLogs++
			default:
				c.Memtables++
			}
		}
	}
	refuse := func(code Code, format string, args ...any) (Contents, error) {
		return c, &Error{Code: code, Store: store, Dir: dir, Found: c.String(), Msg: fmt.Sprintf(format, args...)}
	}
	if !c.Manifest {
		if c.HasData() {
			return refuse(CodeNoManifest, "the directory holds data files but no %s: Badger would open it as an empty database and delete its tables", manifestName)
		}
		return c, nil
	}
	named, err := replayManifest(filepath.Join(dir, manifestName))
	if err != nil {
		return refuse(CodeBadManifest, "%s cannot be read: %v", manifestName, err)
	}
	c.ManifestTables = len(named)
	for id := range named {
		if _, ok := tables[id]; !ok {
			return refuse(CodeBadManifest, "%s names table %06d.sst, which is not in the directory", manifestName, id)
		}
	}
	for id, name := range tables {
		if _, ok := named[id]; !ok {
			c.Orphans = append(c.Orphans, name)
		}
	}
	if len(named) == 0 && len(c.Orphans) > 0 {
		return refuse(CodeBadManifest, "%s names no table while %d table files are present: Badger would delete them", manifestName, len(c.Orphans))
	}
	slices.Sort(c.Orphans)
	return c, nil
}

// DropEmpty removes from dir the empty value-log and memtable files that
// CheckBadgerDir listed in c.Empty, and syncs dir. A read-write open
// calls it after the check and before badger.Open; a read-only open
// cannot, and leaves the store to a read-write one.
func DropEmpty(dir string, c Contents) error {
	if len(c.Empty) == 0 {
		return nil
	}
	for _, name := range c.Empty {
		path := filepath.Join(dir, name)
		info, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("storeguard: %w", err)
		}
		if !info.Mode().IsRegular() || info.Size() != 0 {
			return fmt.Errorf("storeguard: %s is no longer an empty file; not removed", path)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("storeguard: %w", err)
		}
	}
	return syncDir(dir)
}

// replayManifest returns the tables a MANIFEST names.
func replayManifest(path string) (map[uint64]badger.TableManifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// No logger: Badger's default one prints to stderr.
	m, _, err := badger.ReplayManifestFile(f, 0, badger.DefaultOptions("").WithLogger(nil))
	if err != nil {
		return nil, err
	}
	return m.Tables, nil
}
