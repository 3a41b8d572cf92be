package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// newPasskeysCmd is `parley approvals passkeys list|revoke`.
func newPasskeysCmd(f *clientFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "passkeys",
		Short: "List and revoke the principal's passkeys and software keys",
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the principal's passkeys and software keys, the revoked ones included",
		Example: "  parley approvals passkeys list\n  parley approvals passkeys list --json",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			pks, err := s.c.Passkeys(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { printPasskeys(w, pks) })
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke REF",
		Short: "Revoke a passkey or software key: another passkey approves, or for the last one the data directory",
		Long: "Revokes the credential with reference REF (parley approvals passkeys list names them). A revocation\n" +
			"is itself approved: while another usable passkey exists, the node makes a revoke_passkey request\n" +
			"that ANOTHER passkey must approve (never the one revoked); the command prints it and waits. The\n" +
			"last usable passkey is revoked with a one-time token the command makes in the node's data\n" +
			"directory (--data-dir), so only someone on the node's machine who can read that directory can\n" +
			"revoke it; the API's key cannot. Once revoked, the credential approves nothing: not the requests\n" +
			"already waiting, and the receipts it gave that were not used yet are refused. Every revocation\n" +
			"is in the audit trail. Revoke a software key whose file may have leaked: the file is a credential.",
		Example: "  parley approvals passkeys revoke 5f0c9d2e8a7b4c1d9e3f2a1b0c9d8e7f\n" +
			"  parley approvals passkeys revoke 5f0c9d2e8a7b4c1d9e3f2a1b0c9d8e7f --data-dir ~/.parley-worker",
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := strings.ToLower(args[0])
			if len(ref) != 32 || strings.Trim(ref, "0123456789abcdef") != "" {
				return usageErr(fmt.Errorf("%q is not a passkey reference (32 hex digits, as parley approvals passkeys list prints it)", args[0]))
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			pks, err := s.c.Passkeys(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			var target *api.Passkey
			others := 0
			for i, p := range pks {
				switch {
				case p.Ref == ref:
					target = &pks[i]
				case p.RevokedAt == nil && !p.Cloned:
					others++
				}
			}
			switch {
			case target == nil:
				return &exitError{code: exitRefused, err: fmt.Errorf("the node has no passkey %s (parley approvals passkeys list)", ref)}
			case target.RevokedAt != nil:
				return &exitError{code: exitRefused, err: fmt.Errorf("passkey %s was revoked at %s", ref, target.RevokedAt.UTC().Format(time.RFC3339))}
			}
			token := ""
			progress := cmd.ErrOrStderr()
			if others == 0 {
				ls, err := f.local(os.Getenv)
				if err != nil {
					return err
				}
				if token, err = node.IssueRevokeToken(ls.Node.DataDir, ref, time.Now(), 0); err != nil {
					return &exitError{code: exitRefused, err: fmt.Errorf("%s is the last usable passkey: it is revoked with a token of the node's data directory, which could not be made in %s: %w", ref, ls.Node.DataDir, err)}
				}
				if !f.quiet && !f.json {
					fmt.Fprintf(progress, "%s is the last usable passkey: revoking it with a one-time token made in %s\n", ref, ls.Node.DataDir)
				}
			} else if !f.quiet && !f.json {
				fmt.Fprintf(progress, "another passkey must approve this revocation (never the one revoked); waiting for it\n")
			}
			stop := s.follow("")
			pk, err := s.c.RevokePasskey(s.ctx(), ref, token)
			stop("")
			if err != nil {
				var ae *api.Error
				if errors.As(err, &ae) && ae.Code == "not_authorized" && token == "" {
					return &exitError{code: exitRefused, err: fmt.Errorf("the node refused: %s: %s (if it is the last usable passkey, run this command on the node's machine with --data-dir)", ae.Code, ae.Message)}
				}
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				fmt.Fprintf(w, "revoked %s %q: it approves nothing from now on\n", pk.Ref, pk.Label)
			})
		},
	}
	cmd.AddCommand(list, revoke)
	return cmd
}

// printPasskeys writes the principal's credentials, one a line.
func printPasskeys(w io.Writer, pks []api.Passkey) {
	if len(pks) == 0 {
		fmt.Fprintln(w, "no passkey is registered (parley approvals enrol makes the first one's token)")
		return
	}
	t := newTable(w)
	t.row("REF", "LABEL", "KIND", "REGISTERED", "SIGNATURES", "STATE")
	for _, p := range pks {
		kind := "passkey"
		if p.Software {
			kind = "software key"
		}
		state := "in use"
		switch {
		case p.RevokedAt != nil:
			state = "revoked " + p.RevokedAt.UTC().Format(time.RFC3339)
		case p.Cloned:
			state = "flagged as cloned: approves nothing"
		}
		label := p.Label
		if label == "" {
			label = "-"
		}
		t.row(p.Ref, label, kind, p.RegisteredAt.UTC().Format(time.RFC3339), p.SignCount, state)
	}
	t.flush()
}
