package node

import "github.com/parleynet/parley/ledger"

// v2Parts returns a version-2 bundle's tree head, signer link and anchor
// (nil for version 1).
func v2Parts(rep *ledger.BundleReport) (*ledger.TreeHead, []byte, *ledger.TreeAnchor) {
	if rep.Version < 2 {
		return nil, nil, nil
	}
	return rep.TreeHead, rep.Signer, rep.Anchor
}
