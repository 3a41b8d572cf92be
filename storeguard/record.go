package storeguard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// RecordFormat names the format of a record file.
const RecordFormat = "parley-store-record/1"

// Record is what a store held when its owner last wrote the record. It
// lives in a file beside the store's directory and is a lower bound: it is
// written only after the store's commit is on disk, so the store may hold
// more than its record, never less.
type Record struct {
	// Format is RecordFormat.
	Format string `json:"format"`
	// Store names the store: "ledger" or "approvals".
	Store string `json:"store"`
	// Owner is the peer id of the node the store belongs to, so a record
	// (or a store) copied from another node is noticed.
	Owner string `json:"owner,omitempty"`
	// StoreID is a random id the store holds (the approval store); a
	// store with another id is another store.
	StoreID string `json:"storeId,omitempty"`
	// Seq is the store's position: the ledger's head seq, the approval
	// store's generation (one per committed change).
	Seq uint64 `json:"seq"`
	// Hash is the ledger's head hash at Seq.
	Hash string `json:"hash,omitempty"`
	// Counts are what the store held by kind (the approval store's
	// credentials, approvals and consumptions).
	Counts map[string]uint64 `json:"counts,omitempty"`
	// At is when the record was written.
	At time.Time `json:"at"`
}

// String describes the record for people.
func (r *Record) String() string {
	if r == nil {
		return "nothing"
	}
	parts := []string{fmt.Sprintf("seq %d", r.Seq)}
	if r.Hash != "" {
		parts = append(parts, "hash "+r.Hash)
	}
	if len(r.Counts) > 0 {
		keys := make([]string, 0, len(r.Counts))
		for k := range r.Counts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%d %s", r.Counts[k], k))
		}
	}
	if r.StoreID != "" {
		parts = append(parts, "store id "+r.StoreID)
	}
	if r.Owner != "" {
		parts = append(parts, "owner "+r.Owner)
	}
	if !r.At.IsZero() {
		parts = append(parts, "written "+r.At.UTC().Format(time.RFC3339))
	}
	return strings.Join(parts, ", ")
}

// RecordFile returns the record file of the store in dir: dir + ".record",
// beside the directory (never inside it: the directory is the store's).
func RecordFile(dir string) string { return filepath.Clean(dir) + ".record" }

// Read reads the record of store from path. It returns nil and no error
// when there is no record file, and an *Error with CodeBadRecord when the
// file does not parse as a record of store.
func Read(store, path string) (*Record, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("storeguard: read %s: %w", path, err)
	}
	badRecord := func(format string, args ...any) error {
		return &Error{Code: CodeBadRecord, Store: store, Dir: strings.TrimSuffix(path, ".record"), RecordFile: path,
			Msg: "the record file is damaged: " + fmt.Sprintf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, badRecord("%v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, badRecord("data after the record")
	}
	if r.Format != RecordFormat {
		return nil, badRecord("format %q, want %q", r.Format, RecordFormat)
	}
	if r.Store != store {
		return nil, badRecord("it is the record of store %q", r.Store)
	}
	return &r, nil
}

// Write writes r to path atomically: a temporary file in the same
// directory (mode 0600), fsync, rename, fsync of the directory. A reader
// sees the old record or the new one, never a torn one.
func Write(path string, r Record) (err error) {
	r.Format = RecordFormat
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("storeguard: record: %w", err)
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("storeguard: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err == nil {
		if _, err = f.Write(b); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("storeguard: write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("storeguard: write %s: %w", path, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("storeguard: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("storeguard: sync %s: %w", dir, err)
	}
	return nil
}
