package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
)

func newApprovalsCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List, approve (with a passkey) and deny the acts waiting for the principal",
		Long: "Every act that moves money or commits the node (signing a settlement, funding, releasing a\n" +
			"milestone, a cancel, an amendment, a replacement, opening a dispute, naming an arbitrator, a\n" +
			"ruling) waits until its principal approves that exact act with a passkey: a WebAuthn assertion\n" +
			"whose challenge is the request's intent hash. A person approves on the node's pages\n" +
			"(http://localhost:7480 by default: register the first passkey there with the token `parley init`\n" +
			"printed, then approve the pending acts); automation approves with a software key registered as\n" +
			"one of the principal's passkeys. The API's bearer key alone approves nothing; anyone holding it\n" +
			"may deny.",
	}
	f.register(cmd.PersistentFlags())
	list := &cobra.Command{
		Use:   "list",
		Short: "List the pending requests, each act in plain words with its exact values",
		Example: "  parley approvals list\n" +
			"  parley approvals list --json | jq -r '.[].request.requestId'",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			reqs, err := s.c.Approvals(s.ctx())
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { printApprovals(w, reqs) })
		},
	}
	show := &cobra.Command{
		Use:     "show REQUEST",
		Short:   "Show one pending request",
		Example: "  parley approvals show req_5f0c9d2e8a7b4c1d9e3f2a1b0c9d8e7f",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			p, err := s.c.Approval(s.ctx(), args[0])
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { printApprovals(w, []node.PendingApproval{p}) })
		},
	}
	var keyFile string
	approve := &cobra.Command{
		Use:   "approve REQUEST --software-key FILE",
		Short: "Approve a pending request with a software key: the node checks its WebAuthn assertion",
		Long: "Fetches the request's WebAuthn options (the challenge is its intent hash), signs them with the\n" +
			"software key in FILE (made by `parley approvals software-key new`) and sends the assertion; the\n" +
			"node verifies it against the registered credential and hands the receipt to the waiting act,\n" +
			"which consumes it before it acts. The key's counter advances: FILE is saved again. A person\n" +
			"approves with a passkey on the node's pages instead.",
		Example: "  parley approvals approve req_5f0c9d2e8a7b4c1d9e3f2a1b0c9d8e7f --software-key ~/.parley/bot.key",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if keyFile == "" {
				return usageErr(errors.New("--software-key is required (a person approves with a passkey on the node's pages)"))
			}
			key, err := loadSoftwareKey(keyFile)
			if err != nil {
				return usageErr(err)
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			r, err := s.c.Approve(s.ctx(), args[0], key)
			if serr := saveSoftwareKey(keyFile, key); serr != nil && err == nil {
				err = fmt.Errorf("approved, but the key's new counter was not saved (%w): the next approval with this file will flag the key as cloned", serr)
			}
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) {
				fmt.Fprintf(w, "approved %s (intent %s) with the software key; the act consumes the receipt\n", r.RequestID, r.IntentHash)
			})
		},
	}
	approve.Flags().StringVar(&keyFile, "software-key", "", "the software key file that signs the approval (required)")
	var reason string
	deny := &cobra.Command{
		Use:     "deny REQUEST --reason R",
		Short:   "Deny a pending request: the act it names is refused and nothing is signed or sent",
		Example: "  parley approvals deny req_5f0c9d2e8a7b4c1d9e3f2a1b0c9d8e7f --reason \"too expensive\"",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reason == "" {
				return usageErr(fmt.Errorf("--reason is required"))
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			r, err := s.c.Deny(s.ctx(), args[0], reason)
			if err != nil {
				return s.fail(err)
			}
			return s.show(func(w io.Writer) { fmt.Fprintf(w, "denied %s\n", r.RequestID) })
		},
	}
	deny.Flags().StringVar(&reason, "reason", "", "why (required; given back in the denied receipt, not recorded)")
	enrol := &cobra.Command{
		Use:   "enrol",
		Short: "Make a new one-time token for the first passkey, in the data directory (no API call)",
		Long: "Makes a new enrolment token by writing the node's data directory directly (it replaces the one\n" +
			"`parley init` printed), whether or not the node runs, and prints it with the page where the\n" +
			"first passkey is registered with it; its text is also in <data-dir>/" + node.EnrolTokenFileName + " (mode 0600). Only\n" +
			"whoever can read the data directory can make or read one: the node's API issues none, so an\n" +
			"agent holding the API key cannot enrol a passkey. A token enrols only while no passkey is\n" +
			"registered: a further passkey needs an approval by an existing one.",
		Example: "  parley approvals enrol --data-dir ~/.parley-worker",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.local(os.Getenv)
			if err != nil {
				return err
			}
			t, exp, err := node.IssueEnrolTokenUntil(cmd.Context(), s.Node.DataDir, time.Now(), 0)
			if err != nil {
				return &exitError{code: exitRefused, err: err}
			}
			w := cmd.OutOrStdout()
			if f.json {
				return json.NewEncoder(w).Encode(map[string]any{"token": t, "expiresAt": exp, "file": filepath.Join(s.Node.DataDir, node.EnrolTokenFileName)})
			}
			fmt.Fprintf(w, "enrolment token: %s\n  valid once, until %s; also in %s\n", t, exp.Format(time.RFC3339), filepath.Join(s.Node.DataDir, node.EnrolTokenFileName))
			if _, port, err := net.SplitHostPort(s.WebListen); err == nil && s.WebListen != "" {
				fmt.Fprintf(w, "  register your first passkey with it at http://localhost:%s/passkeys\n", port)
			}
			return nil
		},
	}
	cmd.AddCommand(list, show, approve, deny, enrol, newApprovalsHashCmd(), newSoftwareKeyCmd(&f), newPasskeysCmd(&f))
	return cmd
}

// local resolves the node's settings from the data directory and
// configuration flags, for the commands that read or write the data
// directory itself instead of calling the API.
func (f *clientFlags) local(getenv func(string) string) (settings, error) {
	fs := pflag.NewFlagSet("local", pflag.ContinueOnError)
	fs.String("data-dir", "", "")
	fs.String("config", "", "")
	if f.dataDir != "" {
		_ = fs.Set("data-dir", f.dataDir)
	}
	if f.config != "" {
		_ = fs.Set("config", f.config)
	}
	s, err := loadSettings(fs, getenv)
	if err != nil {
		return s, usageErr(fmt.Errorf("finding the data directory: %w", err))
	}
	if s.Node.DataDir == "" {
		return s, usageErr(errors.New("no data directory: give --data-dir"))
	}
	return s, nil
}

// newApprovalsHashCmd is `parley approvals hash FILE`, offline.
func newApprovalsHashCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hash FILE",
		Short: "Print the intent hash of a request file, computed offline",
		Long: "Reads an approval request (the JSON of an IntentRequest, a pending approval as `parley approvals\n" +
			"show --json` prints it, or a receipt) and prints the intent hash its fields give:\n" +
			"lowerhex(SHA-256(JCS(hashing payload))), what a passkey signs. Exits 1 when the file states\n" +
			"another hash. \"-\" reads standard input.",
		Example: "  parley approvals show req_5f0c... --json > req.json && parley approvals hash req.json",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var b []byte
			var err error
			if args[0] == "-" {
				b, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), approval.MaxReceiptBytes+1))
			} else {
				b, err = os.ReadFile(args[0])
			}
			if err != nil {
				return usageErr(err)
			}
			req, err := requestOf(b)
			if err != nil {
				return usageErr(fmt.Errorf("%s: %w", args[0], err))
			}
			h, err := req.ComputeHash()
			if err != nil {
				return &exitError{code: exitRefused, err: err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), h)
			if req.IntentHash != "" && req.IntentHash != h {
				return &exitError{code: exitRefused, err: fmt.Errorf("the file states intentHash %s, its fields hash to %s: it was changed", req.IntentHash, h)}
			}
			return nil
		},
	}
}

// requestOf reads the request in b: an IntentRequest, or one wrapped as
// a pending approval's "request" or a receipt's "intent".
func requestOf(b []byte) (approval.IntentRequest, error) {
	var outer map[string]json.RawMessage
	if err := strictjson.Unmarshal(b, &outer); err != nil {
		return approval.IntentRequest{}, err
	}
	for _, k := range []string{"request", "intent"} {
		if inner, ok := outer[k]; ok && bytes.HasPrefix(bytes.TrimSpace(inner), []byte("{")) {
			b = inner
			break
		}
	}
	var r approval.IntentRequest
	if err := strictjson.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("not an approval request: %w", err)
	}
	return r, nil
}

// newSoftwareKeyCmd is `parley approvals software-key new`.
func newSoftwareKeyCmd(f *clientFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "software-key",
		Short: "Software keys: passkeys for automation",
	}
	var (
		out, label, token string
		wait              time.Duration
	)
	create := &cobra.Command{
		Use:   "new --out FILE",
		Short: "Make a software key and register it as a passkey of the node's principal",
		Long: "Makes a software authenticator (a P-256 key answering WebAuthn ceremonies), registers it through\n" +
			"the node's API as a credential of the principal, marked as a software key in every receipt and\n" +
			"audit entry, and writes it to FILE (mode 0600). The first credential is enrolled with --token,\n" +
			"or without it with the enrolment token of the node's data directory (--data-dir: the one\n" +
			"`parley init` wrote there, or a new one made there); never with one from the API. A further\n" +
			"credential waits until an existing passkey approves its registration: the command prints the\n" +
			"request to approve and waits up to --wait. FILE is a credential of the principal: whoever\n" +
			"holds it can approve every act the node asks its principal about. Keep it as secret as a\n" +
			"private key.",
		Example: "  parley approvals software-key new --out ~/.parley/bot.key --label bot\n" +
			"  parley approvals software-key new --out bot.key --token parley-enrol-3f0c...",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageErr(errors.New("--out is required"))
			}
			if _, err := os.Stat(out); err == nil {
				return usageErr(fmt.Errorf("%s exists; refusing to overwrite a key", out))
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			dataDir := ""
			if token == "" {
				if ls, err := f.local(os.Getenv); err == nil {
					dataDir = ls.Node.DataDir
				}
			}
			key, pk, err := registerSoftwareKey(s.ctx(), s.c, dataDir, label, token, wait, func(req string) {
				fmt.Fprintf(cmd.ErrOrStderr(), "a passkey is registered: approve request %s with it (on the node's pages, or parley approvals approve %s --software-key OTHER%s); waiting up to %s\n",
					req, req, f.connFlags(), wait)
			})
			if err != nil {
				return s.fail(err)
			}
			b, err := json.Marshal(key)
			if err != nil {
				return err
			}
			if err := writeNew(out, append(b, '\n'), 0o600); err != nil {
				return &exitError{code: exitRefused, err: fmt.Errorf("the key is registered (ref %s) but could not be written: %w; remove the credential", pk.Ref, err)}
			}
			return s.show(func(w io.Writer) {
				fmt.Fprintf(w, "software key %q registered (credential ref %s) and written to %s\n", pk.Label, pk.Ref, out)
				fmt.Fprintf(w, "%s is a credential: whoever holds it approves every act of the node's principal; keep it secret\n", out)
				fmt.Fprintf(w, "approve with: parley approvals approve REQUEST --software-key %s%s\n", out, f.connFlags())
			})
		},
	}
	create.Flags().StringVar(&out, "out", "", "file to write the key to (required; refused if it exists)")
	create.Flags().StringVar(&label, "label", "software key", "the credential's label")
	create.Flags().StringVar(&token, "token", "", "the enrolment token of the first credential (default: the data directory's)")
	create.Flags().DurationVar(&wait, "wait", 10*time.Minute, "how long to wait for an existing passkey's approval")
	cmd.AddCommand(create)
	return cmd
}

// printApprovals writes each pending request: its act in a sentence and
// its values in plain words.
func printApprovals(w io.Writer, reqs []node.PendingApproval) {
	if len(reqs) == 0 {
		fmt.Fprintln(w, "no approvals pending")
		return
	}
	for i, r := range reqs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", r.Title)
		t := newTable(w)
		t.row("  request", r.Request.RequestID)
		t.row("  act", string(r.Act)+" ("+r.Request.Action.Tool+")")
		for _, l := range r.Lines {
			t.row("  "+l.Label, l.Value)
		}
		t.flush()
	}
}
