package node

import "github.com/parleynet/parley/ledger"

// v2Parts returns a version-2 bundle's tree head, signer link and anchor
// (nil for version 1).
func v2Parts(rep *ledger.BundleReport) (*ledger.TreeHead, []byte, *ledger.TreeAnchor) {
	return nil, nil, nil
}
