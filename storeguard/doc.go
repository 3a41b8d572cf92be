// Package storeguard keeps Parley's Badger stores (the ledger, the
// approval store) from resetting silently. Badger trusts its MANIFEST: a
// directory whose MANIFEST was deleted opens as an empty database, and
// Badger then deletes every table file the new MANIFEST does not name. A
// node must never come up on such a store as if it were new.
//
// It owns three things:
//
//   - the record: a small file beside a store's directory (for the ledger
//     <data-dir>/ledger.record) that says what the store held when it was
//     last written (a position, a hash or counts) and which node it belongs
//     to, written atomically (temporary file, fsync, rename, fsync of the
//     directory) by the store's owner after its commits;
//   - the check of a Badger directory before it is opened: table,
//     value-log or memtable files without a MANIFEST, or with a MANIFEST
//     that does not parse, names a table that is missing, or names no
//     table while tables are present, are refused;
//   - what is done to a store's files: their modes (0600 files in 0700
//     directories), the removal of the empty value-log and memtable files
//     a kill can leave (they hold nothing, and Badger cannot open a
//     directory with one), and the archive of a store that is reset on
//     purpose, which renames it and never deletes it.
//
// Callers follow this contract:
//
//  1. Before badger.Open, Read the record (nil when there is none) and
//     call CheckBadgerDir; refuse to open on an error. A read-write open
//     then calls DropEmpty.
//  2. After opening, compare what the store holds with the record; refuse
//     with an *Error naming the store, the record and what was found when
//     the store holds less or other data, or the record names another owner.
//  3. Write the record after commits (it may trail the store, never lead
//     it: it is written only after the store's commit is on disk).
//  4. Call Private on the directory at open and close.
//
// It imports Badger (to read a MANIFEST) and the standard library only; the
// ledger and the node use it, it uses neither.
package storeguard
