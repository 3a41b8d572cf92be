package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// The commands of issue 14's acts: a worker's capability proofs, the
// poster's revision requests, the worker's payment requests and the
// poster's partial releases.

func newCapabilityCmd() *cobra.Command {
	var (
		capability, kind, description, ref, file, media, c, attester, signature string
		spec                                                                    node.CapabilitySpec
	)
	return negActCmd(negAct{
		use:   "capability NEGOTIATION --capability C --kind K --description D [--file PATH | --cid CID] [--ref URL] [--attester 0x... --signature 0x...]",
		short: "Attach a capability proof, as the worker",
		long: "Sends the poster a CapabilityProof: a file (stored here under its CID; the poster's node fetches it\n" +
			"over the blob protocol and checks it against the CID), or the CID of a file this node holds, and/or an\n" +
			"attestation: another address's EIP-191 signature (personal_sign) over the text\n" +
			"  Parley capability attestation\\nsubject: <this node's address>\\ncapability: <C>\\nstatement: <D>\n" +
			"which this node verifies before sending it. The poster's thread view and its brief say which proofs\n" +
			"were checked.",
		example: "  parley capability 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --capability translation:en-de --kind portfolio \\\n" +
			"      --description \"120 manuals EN to DE since 2019\" --file portfolio.pdf --ref https://portfolio.example.net/en-de\n" +
			"  parley capability 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b --capability translation:en-de --kind attestation \\\n" +
			"      --description \"translated our manuals\" --attester 0x90F79bf6EB2c4f870365E785982E1f101E93b906 --signature 0x5c1f...1b",
		flags: func(cmd *cobra.Command) {
			fs := cmd.Flags()
			fs.StringVar(&capability, "capability", "", "the domain proved (required)")
			fs.StringVar(&kind, "kind", "", "what the proof is: portfolio, certificate, attestation, ... (required)")
			fs.StringVar(&description, "description", "", "what the proof shows (an attestation signs it)")
			fs.StringVar(&ref, "ref", "", "a further reference, shown but not checked")
			fs.StringVar(&file, "file", "", "a file to attach: the poster's node fetches and checks it")
			fs.StringVar(&media, "media-type", "", "the file's media type (default: from its name or its bytes)")
			fs.StringVar(&c, "cid", "", "the CID of a file this node holds, instead of --file")
			fs.StringVar(&attester, "attester", "", "the attester's EVM address")
			fs.StringVar(&signature, "signature", "", "the attester's EIP-191 signature, 0x and 130 hex digits")
		},
		check: func([]string) (err error) {
			if capability == "" || kind == "" {
				return usageErr(fmt.Errorf("--capability and --kind are required"))
			}
			if (attester == "") != (signature == "") {
				return usageErr(fmt.Errorf("an attestation gives --attester and --signature together"))
			}
			spec = node.CapabilitySpec{Capability: capability, Kind: kind, Description: description, Ref: ref, CID: negotiation.CID(c)}
			if file != "" {
				if err := negotiation.CheckFileName(filepath.Base(file)); err != nil {
					return flagErr("file", file, err)
				}
				if spec.Data, err = readFileArg("file", file); err != nil {
					return err
				}
				spec.Name, spec.MediaType = filepath.Base(file), media
				if media == "" {
					spec.MediaType = mediaTypeOf(file, spec.Data)
				}
			}
			if attester != "" {
				a, err := parseAddr("--attester", attester)
				if err != nil {
					return err
				}
				spec.Attester = &a
				if err := spec.Signature.UnmarshalText([]byte(signature)); err != nil {
					return flagErr("signature", signature, err)
				}
			}
			return nil
		},
		do: func(ctx context.Context, c *api.Client, nid string) (node.ActResult, error) {
			return c.Capability(ctx, nid, spec)
		},
	}, nil)
}
