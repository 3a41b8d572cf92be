package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/strictjson"
)

// A software key file holds an approval.SoftwareKey's state, its private
// key included: it is a credential of the node's principal, and whoever
// reads it can approve every act of the node's principal (its first
// member, "warning", says so). It is written with mode 0600, like the API
// key, and saved again after every approval (its signature counter advances; a stale
// copy used later is caught by the node as a cloned credential).

// loadSoftwareKey reads the software key in path.
func loadSoftwareKey(path string) (*approval.SoftwareKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("software key: %w", err)
	}
	var k approval.SoftwareKey
	if err := strictjson.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("software key %s: %w", path, err)
	}
	return &k, nil
}

// saveSoftwareKey writes k to path atomically (a temporary file renamed
// over it), mode 0600.
func saveSoftwareKey(path string, k *approval.SoftwareKey) error {
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".software-key-*")
	if err != nil {
		return fmt.Errorf("software key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// registration reports the progress of a software key's registration:
// the request an existing passkey must approve.
type registration func(pendingRequest string)

// registerSoftwareKey makes a new software key and registers it through
// the node's API as a credential of its principal, labelled label. The
// first credential is enrolled with token; when token is empty and the
// node has no passkey, with the enrolment token of the data directory
// dataDir (the one `parley init` wrote there, or a new one made there):
// never one from the API, whose key is capability, not authority. A
// further one waits, up to wait, for an existing passkey to approve its
// register_passkey request (pending is told which). The key is returned
// once registered; the caller saves it.
func registerSoftwareKey(ctx context.Context, c *api.Client, dataDir, label, token string, wait time.Duration, pending registration) (*approval.SoftwareKey, api.Passkey, error) {
	if token == "" {
		pks, err := c.Passkeys(ctx)
		if err != nil {
			return nil, api.Passkey{}, err
		}
		if activePasskeys(pks) == 0 {
			if token, err = dataDirEnrolToken(ctx, dataDir); err != nil {
				return nil, api.Passkey{}, err
			}
		}
	}
	o, err := c.PasskeyOptions(ctx, api.PasskeyRequest{Token: token, Label: label, Software: true})
	if err != nil {
		return nil, api.Passkey{}, err
	}
	if o.Creation == nil {
		if pending != nil {
			pending(o.PendingRequest)
		}
		deadline := time.Now().Add(wait)
		for o.Creation == nil {
			if time.Now().After(deadline) {
				return nil, api.Passkey{}, fmt.Errorf("request %s was not approved within %s", o.PendingRequest, wait)
			}
			select {
			case <-ctx.Done():
				return nil, api.Passkey{}, ctx.Err()
			case <-time.After(time.Second):
			}
			if o, err = c.PasskeyOptions(ctx, api.PasskeyRequest{Token: o.Session}); err != nil {
				return nil, api.Passkey{}, err
			}
		}
	}
	info := o.WebAuthn
	if len(info.Origins) == 0 {
		return nil, api.Passkey{}, errors.New("the node named no page origin for its passkeys")
	}
	cfg := approval.DefaultConfig()
	cfg.RPID, cfg.Origins, cfg.UserID = info.RPID, info.Origins, info.UserID
	if info.RPName != "" {
		cfg.RPName = info.RPName
	}
	if info.UserName != "" {
		cfg.UserName = info.UserName
	}
	key, err := approval.NewSoftwareKey(cfg, info.Origins[0])
	if err != nil {
		return nil, api.Passkey{}, err
	}
	resp, err := key.Create(o.Creation)
	if err != nil {
		return nil, api.Passkey{}, err
	}
	pk, err := c.PasskeyCredential(ctx, o.Session, resp)
	if err != nil {
		return nil, api.Passkey{}, err
	}
	return key, pk, nil
}

// activePasskeys counts the passkeys that are not revoked: while there is
// none, the first is enrolled with the data directory's token.
func activePasskeys(pks []api.Passkey) int {
	n := 0
	for _, p := range pks {
		if p.RevokedAt == nil {
			n++
		}
	}
	return n
}

// dataDirEnrolToken returns the enrolment token of data directory dir:
// the current one while it can enrol, else a new one made there (as
// `parley approvals enrol` makes it).
func dataDirEnrolToken(ctx context.Context, dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no passkey is registered: the first one needs the enrolment token of the node's data directory (give --data-dir, or --token)")
	}
	now := time.Now()
	t, _, err := node.EnrolTokenOf(dir, now)
	if err != nil {
		return "", err
	}
	if t != "" {
		return t, nil
	}
	t, err = node.IssueEnrolToken(ctx, dir, now, 0)
	if err != nil {
		return "", fmt.Errorf("no passkey is registered and no enrolment token could be made in %s: %w", dir, err)
	}
	return t, nil
}
