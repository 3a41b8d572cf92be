package ledger

import (
	"encoding/binary"
	"strconv"

	"github.com/ipfs/go-cid"
)

// Key layout. Every key starts with one prefix byte; sequence numbers are
// 8 bytes big-endian so that keys sort in chain order.
const (
	pEntry      = 'e' // e|seq              -> prev(32) | hash(32) | JCS(entry)
	pHead       = 'h' // h                  -> seq(8) | hash(32): the last entry
	pCheckpoint = 'k' // k                  -> seq(8) | hash(32): verified up to here
	pMeta       = 'm' // m                  -> the format name
	pObject     = 'o' // o|cid              -> object bytes
	pCID        = 'c' // c|cid              -> seq(8) of the entry that stored the object
	pNeg        = 'n' // n|negotiationId|0|seq -> empty
	pKind       = 't' // t|kind|0|seq       -> empty
	pState      = 's' // s|negotiationId    -> the negotiation's latest thread state
	pPruned     = 'p' // p|cid              -> seq(8) of the retention.pruned entry
	pNode       = 'x' // x|leaf(8)          -> hash(32) per level from 1: the inner Merkle tree nodes appending the leaf completed (tree.go)
	pTree       = 'r' // r                  -> size(8) | root(32): the Merkle tree over every entry
)

// formatName is stored under the meta key of every ledger. Version 2
// keeps the Merkle tree and the negotiationPrev back-links: a binary of
// version 1 would append entries without either, so it refuses a ledger of
// version 2 by its name, and this one upgrades a ledger of version 1 at its
// read-write open (the tree built over its entries, the name rewritten).
const formatName = "parley-ledger/2"

// formatV1 is the format before the Merkle tree.
const formatV1 = "parley-ledger/1"

var (
	keyHead       = []byte{pHead}
	keyCheckpoint = []byte{pCheckpoint}
	keyMeta       = []byte{pMeta}
	keyTree       = []byte{pTree}
)

func entryKey(seq uint64) []byte {
	k := make([]byte, 9)
	k[0] = pEntry
	binary.BigEndian.PutUint64(k[1:], seq)
	return k
}

func cidKey(prefix byte, c cid.Cid) []byte {
	b := c.Bytes()
	k := make([]byte, 1+len(b))
	k[0] = prefix
	copy(k[1:], b)
	return k
}

// indexPrefix returns prefix|name|0, the prefix of an index's keys.
func indexPrefix(prefix byte, name string) []byte {
	k := make([]byte, 0, 2+len(name)+8)
	k = append(k, prefix)
	k = append(k, name...)
	return append(k, 0)
}

func indexKey(prefix byte, name string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(indexPrefix(prefix, name), seq)
}

// seqOfIndexKey returns the seq at the end of an index key.
func seqOfIndexKey(k []byte) uint64 {
	if len(k) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(k[len(k)-8:])
}

func stateKey(negotiationID string) []byte { return append([]byte{pState}, negotiationID...) }

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func cidFromBytes(b []byte) (cid.Cid, error) { return cid.Cast(b) }

func itoa(n int) string { return strconv.Itoa(n) }
